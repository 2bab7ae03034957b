// AVMetadataObject: the base class of what a metadata capture output detects (codes, faces).
import CoreGraphics
import CoreMedia
import Foundation

/// Something a metadata output detected in a picture: its type, when, and where.
///
/// `bounds` is in the capture device's coordinate space: normalised to the unrotated picture,
/// (0, 0) its top-left corner and (1, 1) its bottom-right. Objects are made by the framework
/// (`AVCaptureMetadataOutput`); Apple declares no public initialiser.
open class AVMetadataObject: NSObject, @unchecked Sendable {
    /// The type of metadata this object provides.
    open var type: AVMetadataObject.ObjectType { _type }
    /// The presentation time of the picture the object was detected in.
    open var time: CMTime { _time }
    /// How long the object stands (the picture's duration; `invalid` when unknown).
    open var duration: CMTime { _duration }
    /// The object's bounding rectangle, normalised to the unrotated picture (top-left origin).
    open var bounds: CGRect { _bounds }

    private let _type: ObjectType
    private let _time: CMTime
    private let _duration: CMTime
    private let _bounds: CGRect

    /// An object of `type` found at `bounds` in the picture presented at `time` for `duration`.
    package init(type: ObjectType, time: CMTime, duration: CMTime, bounds: CGRect) {
        _type = type
        _time = time
        _duration = duration
        _bounds = bounds
        super.init()
    }

    /// This object with its geometry moved: `rect` maps the bounds and `point` maps single points
    /// (corners). What `transformedMetadataObject(for:)` returns; subclasses keep their payload.
    package func transformed(rect: (CGRect) -> CGRect, point: (CGPoint) -> CGPoint,
                             rotationDegrees: Int, mirrored: Bool) -> AVMetadataObject {
        AVMetadataObject(type: type, time: time, duration: duration, bounds: rect(bounds))
    }

    open override var description: String {
        "<\(Swift.type(of: self)) type=\"\(type.rawValue)\" bounds=\(bounds) time=\(time.seconds)>"
    }

    /// Identifies a kind of metadata object: a code symbology or a face.
    public struct ObjectType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// Apple's string ("org.iso.QRCode", …).
        public let rawValue: String
        /// A type from its string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A type from its string.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// The string.
        public var description: String { rawValue }

        /// Faces (no detector on Linux: never available).
        public static let face = ObjectType("face")
        /// UPC-E.
        public static let upce = ObjectType("org.gs1.UPC-E")
        /// Code 39.
        public static let code39 = ObjectType("org.iso.Code39")
        /// Code 39 with the mod-43 check character.
        public static let code39Mod43 = ObjectType("org.iso.Code39Mod43")
        /// EAN-13 (UPC-A codes are reported as EAN-13 with a leading 0).
        public static let ean13 = ObjectType("org.gs1.EAN-13")
        /// EAN-8.
        public static let ean8 = ObjectType("org.gs1.EAN-8")
        /// Code 93.
        public static let code93 = ObjectType("com.intermec.Code93")
        /// Code 128.
        public static let code128 = ObjectType("org.iso.Code128")
        /// PDF417.
        public static let pdf417 = ObjectType("org.iso.PDF417")
        /// QR code.
        public static let qr = ObjectType("org.iso.QRCode")
        /// Aztec.
        public static let aztec = ObjectType("org.iso.Aztec")
        /// Interleaved 2 of 5.
        public static let interleaved2of5 = ObjectType("org.ansi.Interleaved2of5")
        /// ITF-14.
        public static let itf14 = ObjectType("org.gs1.ITF14")
        /// Data Matrix.
        public static let dataMatrix = ObjectType("org.iso.DataMatrix")
        /// Codabar.
        public static let codabar = ObjectType("Codabar")
        /// GS1 DataBar (omnidirectional).
        public static let gs1DataBar = ObjectType("org.gs1.GS1DataBar")
        /// GS1 DataBar Expanded.
        public static let gs1DataBarExpanded = ObjectType("org.gs1.GS1DataBarExpanded")
        /// GS1 DataBar Limited.
        public static let gs1DataBarLimited = ObjectType("org.gs1.GS1DataBarLimited")
        /// Micro QR code.
        public static let microQR = ObjectType("org.iso.MicroQR")
        /// MicroPDF417.
        public static let microPDF417 = ObjectType("org.iso.MicroPDF417")
    }
}
