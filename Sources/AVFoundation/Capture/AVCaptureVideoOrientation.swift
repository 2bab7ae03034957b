// AVCaptureVideoOrientation: how pictures are turned, as the deprecated orientation property says it.

/// The orientation of delivered pictures (the deprecated form of `videoRotationAngle`).
public enum AVCaptureVideoOrientation: Int, Sendable {
    /// Turned 90° clockwise (`videoRotationAngle` 90).
    case portrait = 1
    /// Turned 90° counterclockwise (270).
    case portraitUpsideDown = 2
    /// As the sensor delivers (0).
    case landscapeRight = 3
    /// Upside down (180).
    case landscapeLeft = 4

    /// The rotation angle in degrees.
    var rotationAngle: Int {
        switch self {
        case .landscapeRight: return 0
        case .portrait: return 90
        case .landscapeLeft: return 180
        case .portraitUpsideDown: return 270
        }
    }

    init(rotationAngle: Int) {
        switch ((rotationAngle % 360) + 360) % 360 {
        case 90: self = .portrait
        case 180: self = .landscapeLeft
        case 270: self = .portraitUpsideDown
        default: self = .landscapeRight
        }
    }
}
