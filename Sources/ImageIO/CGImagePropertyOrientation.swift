// CGImagePropertyOrientation: the EXIF orientation values.

/// How an image's stored pixels are to be turned for display (the EXIF/TIFF orientation tag).
public enum CGImagePropertyOrientation: UInt32, Sendable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8
}
