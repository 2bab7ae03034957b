// AVMetadataFaceObject: a face a metadata output detected. Declared for source compatibility;
// Linux has no face detector behind the metadata output, so none is ever produced (see
// docs/COMPATIBILITY.md).
import CoreGraphics
import CoreMedia
import Foundation

/// A detected face: an identifier that follows it across pictures, and its roll and yaw.
open class AVMetadataFaceObject: AVMetadataObject, @unchecked Sendable {
    /// The face's identifier, the same while it stays in view.
    open var faceID: Int { _faceID }
    /// Whether `rollAngle` holds a value.
    open var hasRollAngle: Bool { _rollAngle != nil }
    /// The face's tilt in degrees (side to side, relative to the picture). Reading it when
    /// `hasRollAngle` is false raises an exception, as on Apple's platforms.
    open var rollAngle: CGFloat {
        guard let value = _rollAngle else {
            preconditionFailure("*** -[AVMetadataFaceObject rollAngle] rollAngle may not be read when hasRollAngle is NO")
        }
        return value
    }
    /// Whether `yawAngle` holds a value.
    open var hasYawAngle: Bool { _yawAngle != nil }
    /// The face's turn in degrees (around the vertical axis). Reading it when `hasYawAngle` is
    /// false raises an exception, as on Apple's platforms.
    open var yawAngle: CGFloat {
        guard let value = _yawAngle else {
            preconditionFailure("*** -[AVMetadataFaceObject yawAngle] yawAngle may not be read when hasYawAngle is NO")
        }
        return value
    }

    private let _faceID: Int
    private let _rollAngle: CGFloat?
    private let _yawAngle: CGFloat?

    /// A face `faceID` at `bounds`; a nil angle makes its `has…Angle` false.
    package init(faceID: Int, rollAngle: CGFloat?, yawAngle: CGFloat?, time: CMTime, duration: CMTime, bounds: CGRect) {
        _faceID = faceID
        _rollAngle = rollAngle
        _yawAngle = yawAngle
        super.init(type: .face, time: time, duration: duration, bounds: bounds)
    }

    /// Roll turns with the picture (and reverses in a mirror); yaw reverses in a mirror.
    package override func transformed(rect: (CGRect) -> CGRect, point: (CGPoint) -> CGPoint,
                                      rotationDegrees: Int, mirrored: Bool) -> AVMetadataObject {
        var roll = _rollAngle.map { ($0 + CGFloat(rotationDegrees)).truncatingRemainder(dividingBy: 360) }
        if mirrored { roll = roll.map { (360 - $0).truncatingRemainder(dividingBy: 360) } }
        let yaw = mirrored ? _yawAngle.map { (360 - $0).truncatingRemainder(dividingBy: 360) } : _yawAngle
        return AVMetadataFaceObject(faceID: faceID, rollAngle: roll, yawAngle: yaw, time: time, duration: duration,
                                    bounds: rect(bounds))
    }
}
