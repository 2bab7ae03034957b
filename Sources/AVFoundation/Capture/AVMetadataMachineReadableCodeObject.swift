// AVMetadataMachineReadableCodeObject: a barcode or QR code a metadata output read.
import CoreGraphics
import CoreMedia
import Foundation

/// A one- or two-dimensional code detected in a picture: its payload and where its corners are.
open class AVMetadataMachineReadableCodeObject: AVMetadataObject, @unchecked Sendable {
    /// The code's payload decoded as text; nil when it is not text.
    open var stringValue: String? { _stringValue }

    /// The code's corners, in the same coordinates as `bounds` (normalised to the unrotated
    /// picture) and inside it: counter-clockwise as seen in the picture (clockwise when the code
    /// or picture is mirrored), starting with the top-left of the code in its canonical
    /// orientation. One-dimensional codes give the corners of the box their bars cover.
    @nonobjc open var corners: [CGPoint] { _corners }

    private let _stringValue: String?
    private let _corners: [CGPoint]

    /// A code of `type` with payload `stringValue` whose corners are `corners`.
    package init(type: ObjectType, time: CMTime, duration: CMTime, bounds: CGRect, corners: [CGPoint],
                 stringValue: String?) {
        _stringValue = stringValue
        _corners = corners
        super.init(type: type, time: time, duration: duration, bounds: bounds)
    }

    package override func transformed(rect: (CGRect) -> CGRect, point: (CGPoint) -> CGPoint,
                                      rotationDegrees: Int, mirrored: Bool) -> AVMetadataObject {
        AVMetadataMachineReadableCodeObject(type: type, time: time, duration: duration, bounds: rect(bounds),
                                            corners: corners.map(point), stringValue: stringValue)
    }

    open override var description: String {
        "<AVMetadataMachineReadableCodeObject type=\"\(type.rawValue)\" bounds=\(bounds) corners=\(corners) "
            + "stringValue=\(stringValue.map { "\"\($0)\"" } ?? "nil")>"
    }
}
