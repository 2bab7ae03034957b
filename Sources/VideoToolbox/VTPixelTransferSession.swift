// VTPixelTransferSession: copies and converts images between pixel buffers — formats, sizes,
// ranges and Y'CbCr matrices — with libswscale underneath.
import CoreVideo
internal import MediaEngine

/// A session that transfers images between pixel buffers, converting pixel format, size,
/// range and Y'CbCr matrix. Create one with `VTPixelTransferSessionCreate`, configure it with
/// `VTSessionSetProperty`, transfer with `VTPixelTransferSessionTransferImage`, and tear it down
/// with `VTPixelTransferSessionInvalidate`.
///
/// A session is safe to use from several threads at once; each transfer uses its own scaling
/// context from the session's cache.
public final class VTPixelTransferSession: @unchecked Sendable, VTPropertySession {
    private let lock = NSLock()
    private var converter: PixelConverter? = PixelConverter(capacity: 4)
    private var scalingMode: String = (kVTScalingMode_Normal as String)
    private var downsamplingMode: String = (kVTDownsamplingMode_Decimate as String)
    private var destinationCleanAperture: Any?
    private var destinationPixelAspectRatio: Any?
    private var destinationMatrix: String?
    private var destinationPrimaries: String?
    private var destinationTransferFunction: String?
    private var realTime = false

    init() {}

    // MARK: Properties

    package func setProperty(key: String, value: Any?) -> OSStatus {
        lock.lock()
        defer { lock.unlock() }
        guard converter != nil else { return kVTInvalidSessionErr }
        switch key as NSString {
        case kVTPixelTransferPropertyKey_ScalingMode:
            guard let mode = value as? String ?? (value == nil ? kVTScalingMode_Normal as String : nil),
                  [kVTScalingMode_Normal, kVTScalingMode_CropSourceToCleanAperture, kVTScalingMode_Letterbox,
                   kVTScalingMode_Trim].contains(NSString(string: mode)) else { return kVTParameterErr }
            scalingMode = mode
        case kVTPixelTransferPropertyKey_DownsamplingMode:
            guard let mode = value as? String ?? (value == nil ? kVTDownsamplingMode_Decimate as String : nil),
                  [kVTDownsamplingMode_Decimate, kVTDownsamplingMode_Average].contains(NSString(string: mode)) else {
                return kVTParameterErr
            }
            downsamplingMode = mode
        case kVTPixelTransferPropertyKey_DestinationCleanAperture:
            guard value == nil || Self.dictionary(value) != nil else { return kVTParameterErr }
            destinationCleanAperture = value
        case kVTPixelTransferPropertyKey_DestinationPixelAspectRatio:
            guard value == nil || Self.dictionary(value) != nil else { return kVTParameterErr }
            destinationPixelAspectRatio = value
        case kVTPixelTransferPropertyKey_DestinationYCbCrMatrix:
            guard value == nil || (value as? String).flatMap(PixelFormatColor.Matrix.init(rawValue:)) != nil else {
                return kVTParameterErr
            }
            destinationMatrix = value as? String
        case kVTPixelTransferPropertyKey_DestinationColorPrimaries:
            guard value == nil || value is String else { return kVTParameterErr }
            destinationPrimaries = value as? String
        case kVTPixelTransferPropertyKey_DestinationTransferFunction:
            guard value == nil || value is String else { return kVTParameterErr }
            destinationTransferFunction = value as? String
        case kVTPixelTransferPropertyKey_RealTime:
            guard let flag = Self.bool(value) else { return kVTParameterErr }
            realTime = flag
        default:
            return kVTPropertyNotSupportedErr
        }
        return noErr
    }

    package func copyProperty(key: String) -> Result<Any?, VTPropertyError> {
        lock.lock()
        defer { lock.unlock() }
        guard converter != nil else { return .failure(VTPropertyError(kVTInvalidSessionErr)) }
        switch key as NSString {
        case kVTPixelTransferPropertyKey_ScalingMode: return .success(scalingMode)
        case kVTPixelTransferPropertyKey_DownsamplingMode: return .success(downsamplingMode)
        case kVTPixelTransferPropertyKey_DestinationCleanAperture: return .success(destinationCleanAperture)
        case kVTPixelTransferPropertyKey_DestinationPixelAspectRatio: return .success(destinationPixelAspectRatio)
        case kVTPixelTransferPropertyKey_DestinationYCbCrMatrix: return .success(destinationMatrix)
        case kVTPixelTransferPropertyKey_DestinationColorPrimaries: return .success(destinationPrimaries)
        case kVTPixelTransferPropertyKey_DestinationTransferFunction: return .success(destinationTransferFunction)
        case kVTPixelTransferPropertyKey_RealTime: return .success(NSNumber(value: realTime))
        default: return .failure(VTPropertyError(kVTPropertyNotSupportedErr))
        }
    }

    // MARK: Transfer

    func invalidate() {
        let old = lock.withLock { () -> PixelConverter? in
            let c = converter
            converter = nil
            return c
        }
        old?.purge()
    }

    func transfer(from source: CVPixelBuffer, to destination: CVPixelBuffer) -> OSStatus {
        lock.lock()
        let converter = self.converter
        let mode = scalingMode, average = downsamplingMode == (kVTDownsamplingMode_Average as String)
        let destinationAperture = destinationCleanAperture, destinationPAR = destinationPixelAspectRatio
        var options = PixelConverter.Options()
        options.destinationMatrix = destinationMatrix.flatMap(PixelFormatColor.Matrix.init(rawValue:))
        options.destinationColorPrimaries = destinationPrimaries
        options.destinationTransferFunction = destinationTransferFunction
        options.fast = realTime
        lock.unlock()
        guard let converter else { return kVTInvalidSessionErr }
        guard source !== destination, let s = source.storage, let d = destination.storage else { return kVTParameterErr }

        let fullSource = PixelConverter.Rect(x: 0, y: 0, width: s.width, height: s.height)
        let fullDestination = PixelConverter.Rect(x: 0, y: 0, width: d.width, height: d.height)
        var sourceRect = fullSource, destinationRect = fullDestination
        if mode != (kVTScalingMode_Normal as String) {
            sourceRect = Self.cleanAperture(PixelFormatColor.attachment(PixelFormatColor.cleanApertureKey, of: source),
                                            width: s.width, height: s.height) ?? fullSource
            destinationRect = Self.cleanAperture(destinationAperture, width: d.width, height: d.height) ?? fullDestination
            let sourcePAR = Self.aspectRatio(PixelFormatColor.attachment(PixelFormatColor.pixelAspectRatioKey, of: source)) ?? 1
            let destinationRatio = Self.aspectRatio(destinationPAR) ?? sourcePAR
            // The source picture's shape in destination pixels.
            let shape = Double(sourceRect.width) * sourcePAR / (Double(sourceRect.height) * destinationRatio)
            if mode == (kVTScalingMode_Letterbox as String) {
                destinationRect = Self.fit(shape: shape, in: destinationRect)
            } else if mode == (kVTScalingMode_Trim as String) {
                sourceRect = Self.fit(shape: Double(destinationRect.width) / Double(destinationRect.height)
                                          * destinationRatio / sourcePAR, in: sourceRect)
            }
        }
        options.sourceRect = sourceRect == fullSource ? nil : sourceRect
        options.destinationRect = destinationRect == fullDestination ? nil : destinationRect
        let shrinking = destinationRect.width < sourceRect.width || destinationRect.height < sourceRect.height
        options.scaling = average && shrinking ? .area : .bicubic
        do {
            try converter.transfer(from: source, to: destination, options: options)
        } catch {
            return error.osStatus
        }
        if mode != (kVTScalingMode_Normal as String), let par = destinationPAR ?? PixelFormatColor.attachment(
            PixelFormatColor.pixelAspectRatioKey, of: source) {
            PixelFormatColor.setAttachment(PixelFormatColor.pixelAspectRatioKey, par, on: destination)
        }
        return noErr
    }

    // MARK: Geometry

    /// The largest centred rectangle of `shape` (width / height) inside `rect`.
    private static func fit(shape: Double, in rect: PixelConverter.Rect) -> PixelConverter.Rect {
        guard shape.isFinite, shape > 0 else { return rect }
        var w = Double(rect.width), h = Double(rect.height)
        if w / h > shape { w = h * shape } else { h = w / shape }
        let width = max(1, min(rect.width, Int(w.rounded()))), height = max(1, min(rect.height, Int(h.rounded())))
        return PixelConverter.Rect(x: rect.x + (rect.width - width) / 2, y: rect.y + (rect.height - height) / 2,
                                   width: width, height: height)
    }

    /// A clean aperture dictionary as a rectangle of a `width`×`height` picture (offsets are
    /// from the picture's centre); nil when absent or malformed.
    private static func cleanAperture(_ value: Any?, width: Int, height: Int) -> PixelConverter.Rect? {
        guard let d = dictionary(value), let w = number(d["Width"]), let h = number(d["Height"]), w >= 1, h >= 1 else {
            return nil
        }
        let x = (Double(width) - w) / 2 + (number(d["HorizontalOffset"]) ?? 0)
        let y = (Double(height) - h) / 2 + (number(d["VerticalOffset"]) ?? 0)
        let left = max(0, Int(x.rounded())), top = max(0, Int(y.rounded()))
        let right = min(width, Int((x + w).rounded())), bottom = min(height, Int((y + h).rounded()))
        guard right > left, bottom > top else { return nil }
        return PixelConverter.Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// A pixel aspect ratio dictionary as horizontal / vertical spacing.
    private static func aspectRatio(_ value: Any?) -> Double? {
        guard let d = dictionary(value), let h = number(d["HorizontalSpacing"]), let v = number(d["VerticalSpacing"]),
              h > 0, v > 0 else { return nil }
        return h / v
    }

    private static func dictionary(_ value: Any?) -> [String: Any]? {
        if let d = value as? [String: Any] { return d }
        guard let d = value as? NSDictionary else { return nil }
        var out: [String: Any] = [:]
        for (k, v) in d { if let k = k as? String { out[k] = v } }
        return out
    }

    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let n as NSNumber: return n.doubleValue
        case let d as Double: return d
        case let i as Int: return Double(i)
        default: return nil
        }
    }

    private static func bool(_ value: Any?) -> Bool? {
        switch value {
        case let b as Bool: return b
        case let n as NSNumber: return n.boolValue
        default: return nil
        }
    }
}

/// Creates a pixel transfer session.
@discardableResult
public func VTPixelTransferSessionCreate(allocator: CFAllocator?,
                                         pixelTransferSessionOut: UnsafeMutablePointer<VTPixelTransferSession?>) -> OSStatus {
    pixelTransferSessionOut.pointee = VTPixelTransferSession()
    return noErr
}

/// Copies and/or converts the image in `sourceBuffer` into `destinationBuffer`: by default the
/// whole source is scaled to the whole destination; the destination's attachments are replaced
/// by the source's propagating attachments and the colour description of the result.
@discardableResult
public func VTPixelTransferSessionTransferImage(_ session: VTPixelTransferSession, from sourceBuffer: CVPixelBuffer,
                                                to destinationBuffer: CVPixelBuffer) -> OSStatus {
    session.transfer(from: sourceBuffer, to: destinationBuffer)
}

/// Tears down a session: later calls on it return `kVTInvalidSessionErr`.
public func VTPixelTransferSessionInvalidate(_ session: VTPixelTransferSession) {
    session.invalidate()
}
