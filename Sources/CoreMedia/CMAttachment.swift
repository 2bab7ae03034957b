// Attachments: key/value pairs on sample buffers, block buffers and Core Video buffers, each
// either propagated to derived buffers or not.

/// Any object that can carry attachments (CMSampleBuffer, CMBlockBuffer, CVBuffer).
public typealias CMAttachmentBearer = AnyObject

/// Whether an attachment propagates to buffers derived from its bearer.
public typealias CMAttachmentMode = UInt32
/// The attachment is not propagated.
public let kCMAttachmentMode_ShouldNotPropagate: CMAttachmentMode = 0
/// The attachment is propagated.
public let kCMAttachmentMode_ShouldPropagate: CMAttachmentMode = 1

/// Locked attachment storage of a Core Media object.
final class AttachmentStorage: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: (value: AnyObject, mode: CMAttachmentMode)] = [:]

    func set(_ key: String, _ value: AnyObject, _ mode: CMAttachmentMode) {
        lock.lock(); values[key] = (value, mode); lock.unlock()
    }
    func get(_ key: String) -> (value: AnyObject, mode: CMAttachmentMode)? {
        lock.lock(); defer { lock.unlock() }
        return values[key]
    }
    func remove(_ key: String) { lock.lock(); values[key] = nil; lock.unlock() }
    func removeAll() { lock.lock(); values = [:]; lock.unlock() }
    func all(_ mode: CMAttachmentMode) -> [String: AnyObject] {
        lock.lock(); defer { lock.unlock() }
        return values.filter { $0.value.mode == mode }.mapValues(\.value)
    }
}

/// Uniform access to the attachments of the bearers this module knows.
private enum Bearer {
    case core(AttachmentStorage)
    case video(CVBuffer)

    init?(_ target: CMAttachmentBearer) {
        switch target {
        case let s as CMSampleBuffer: self = .core(s.attachments)
        case let b as CMBlockBuffer: self = .core(b.attachments)
        case let v as CVBuffer: self = .video(v)
        default: return nil
        }
    }

    private static func cvMode(_ mode: CMAttachmentMode) -> CVAttachmentMode {
        mode == kCMAttachmentMode_ShouldPropagate ? .shouldPropagate : .shouldNotPropagate
    }

    func set(_ key: String, _ value: AnyObject, _ mode: CMAttachmentMode) {
        switch self {
        case .core(let s): s.set(key, value, mode)
        case .video(let v):
            v.mutex.lock()
            v.attachmentsByMode[.shouldPropagate]?[key] = nil
            v.attachmentsByMode[.shouldNotPropagate]?[key] = nil
            v.attachmentsByMode[Self.cvMode(mode), default: [:]][key] = value
            v.mutex.unlock()
        }
    }

    func get(_ key: String) -> (value: AnyObject, mode: CMAttachmentMode)? {
        switch self {
        case .core(let s): return s.get(key)
        case .video(let v):
            v.mutex.lock(); defer { v.mutex.unlock() }
            if let x = v.attachmentsByMode[.shouldPropagate]?[key] { return (x as AnyObject, kCMAttachmentMode_ShouldPropagate) }
            if let x = v.attachmentsByMode[.shouldNotPropagate]?[key] { return (x as AnyObject, kCMAttachmentMode_ShouldNotPropagate) }
            return nil
        }
    }

    func remove(_ key: String) {
        switch self {
        case .core(let s): s.remove(key)
        case .video(let v):
            v.mutex.lock()
            v.attachmentsByMode[.shouldPropagate]?[key] = nil
            v.attachmentsByMode[.shouldNotPropagate]?[key] = nil
            v.mutex.unlock()
        }
    }

    func removeAll() {
        switch self {
        case .core(let s): s.removeAll()
        case .video(let v):
            v.mutex.lock()
            v.attachmentsByMode = [.shouldPropagate: [:], .shouldNotPropagate: [:]]
            v.mutex.unlock()
        }
    }

    func all(_ mode: CMAttachmentMode) -> [String: AnyObject] {
        switch self {
        case .core(let s): return s.all(mode)
        case .video(let v):
            v.mutex.lock(); defer { v.mutex.unlock() }
            return (v.attachmentsByMode[Self.cvMode(mode)] ?? [:]).mapValues { $0 as AnyObject }
        }
    }
}

/// Sets (or replaces) an attachment. A nil value removes the key.
public func CMSetAttachment(_ target: CMAttachmentBearer, key: CFString, value: CFTypeRef?, attachmentMode: CMAttachmentMode) {
    guard let bearer = Bearer(target) else { return }
    if let value { bearer.set((key as String), value, attachmentMode) } else { bearer.remove((key as String)) }
}

/// The attachment for `key`, and its mode; nil when absent.
@discardableResult
public func CMGetAttachment(_ target: CMAttachmentBearer, key: CFString,
                            attachmentModeOut: UnsafeMutablePointer<CMAttachmentMode>?) -> CFTypeRef? {
    guard let found = Bearer(target)?.get((key as String)) else { return nil }
    attachmentModeOut?.pointee = found.mode
    return found.value
}

/// Removes one attachment.
public func CMRemoveAttachment(_ target: CMAttachmentBearer, key: CFString) {
    Bearer(target)?.remove((key as String))
}

/// Removes every attachment.
public func CMRemoveAllAttachments(_ target: CMAttachmentBearer) {
    Bearer(target)?.removeAll()
}

/// A copy of the attachments with the given mode; nil when there are none.
@discardableResult
public func CMCopyDictionaryOfAttachments(allocator: CFAllocator?, target: CMAttachmentBearer,
                                          attachmentMode: CMAttachmentMode) -> CFDictionary? {
    guard let all = Bearer(target)?.all(attachmentMode), !all.isEmpty else { return nil }
    return NSDictionary(dictionary: all)
}

/// Sets every entry of `theAttachments` as an attachment with the given mode.
public func CMSetAttachments(_ target: CMAttachmentBearer, attachments theAttachments: CFDictionary, attachmentMode: CMAttachmentMode) {
    guard let bearer = Bearer(target) else { return }
    for (k, v) in FormatDescriptionValues.stringKeyed(theAttachments) { bearer.set(k, v as AnyObject, attachmentMode) }
}

/// Copies the propagatable attachments of `source` onto `destination`.
public func CMPropagateAttachments(_ source: CMAttachmentBearer, destination: CMAttachmentBearer) {
    guard let from = Bearer(source), let to = Bearer(destination) else { return }
    for (k, v) in from.all(kCMAttachmentMode_ShouldPropagate) { to.set(k, v, kCMAttachmentMode_ShouldPropagate) }
}
