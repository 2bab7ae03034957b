// AVMetadataItem: one immutable piece of metadata (key, key space, value, type, language, time).
import Foundation

/// A metadata item: a value identified by a key in a key space, with its data type, language
/// and, for timed metadata, its time and duration.
///
/// Items are immutable and safe to share between tasks; `AVMutableMetadataItem` is the
/// editable subclass that `mutableCopy()` returns.
open class AVMetadataItem: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    // Storage. Only AVMutableMetadataItem's setters write it, so an AVMetadataItem proper
    // never changes after init.
    var storedKey: (any NSCopying & NSObjectProtocol)?
    var storedKeySpace: AVMetadataKeySpace?
    var storedValue: (any NSCopying & NSObjectProtocol)?
    var storedDataType: String?
    var storedExtendedLanguageTag: String?
    var storedLocale: Locale?
    var storedTime: CMTime = .invalid
    var storedDuration: CMTime = .invalid
    var storedStartDate: Date?
    var storedExtraAttributes: [AVMetadataExtraAttributeKey: Any]?

    /// Creates an empty item (as `AVMutableMetadataItem()` does).
    public override init() { super.init() }

    /// The reader's designated initializer.
    init(key: (any NSCopying & NSObjectProtocol)?, keySpace: AVMetadataKeySpace?,
         value: (any NSCopying & NSObjectProtocol)?, dataType: String?,
         extendedLanguageTag: String? = nil, locale: Locale? = nil,
         time: CMTime = .invalid, duration: CMTime = .invalid,
         extraAttributes: [AVMetadataExtraAttributeKey: Any]? = nil) {
        storedKey = key
        storedKeySpace = keySpace
        storedValue = value
        storedDataType = dataType
        storedExtendedLanguageTag = extendedLanguageTag
        storedLocale = locale ?? extendedLanguageTag.map { Locale(identifier: $0) }
        storedTime = time
        storedDuration = duration
        storedExtraAttributes = extraAttributes
        super.init()
    }

    /// Copies every property of another item.
    init(copying other: AVMetadataItem) {
        storedKey = other.storedKey
        storedKeySpace = other.storedKeySpace
        storedValue = other.storedValue
        storedDataType = other.storedDataType
        storedExtendedLanguageTag = other.storedExtendedLanguageTag
        storedLocale = other.storedLocale
        storedTime = other.storedTime
        storedDuration = other.storedDuration
        storedStartDate = other.storedStartDate
        storedExtraAttributes = other.storedExtraAttributes
        super.init()
    }

    // MARK: Identity

    /// The item's identifier, `"<key space>/<key>"` (e.g. `"itsk/%A9nam"`), or nil when the key
    /// or key space is missing.
    open var identifier: AVMetadataIdentifier? {
        guard let keySpace = storedKeySpace, let key = storedKey else { return nil }
        return AVMetadataItem.identifier(forKey: key, keySpace: keySpace)
    }

    /// The key: an `NSNumber` holding the four-character code for atom- and frame-based key
    /// spaces (iTunes, QuickTime user data, ISO user data, ID3), an `NSString` otherwise.
    open var key: (any NSCopying & NSObjectProtocol)? { storedKey }

    /// The key space of the key.
    open var keySpace: AVMetadataKeySpace? { storedKeySpace }

    /// The common key this item's key maps to (e.g. `©nam` → `title`), or nil.
    open var commonKey: AVMetadataKey? {
        guard let keySpace = storedKeySpace, let key = storedKey else { return nil }
        return CommonKeyMapping.commonKey(forKey: key, keySpace: keySpace)
    }

    // MARK: Value

    /// The value: `NSString`, `NSNumber`, `NSData`, `NSDate` or `NSDictionary`.
    open var value: (any NSCopying & NSObjectProtocol)? { storedValue }

    /// The value's data type, a `kCMMetadataBaseDataType_…` string.
    open var dataType: String? { storedDataType }

    /// Further attributes of the value (e.g. `.info`, an ID3 frame's content descriptor).
    open var extraAttributes: [AVMetadataExtraAttributeKey: Any]? { storedExtraAttributes }

    /// The value as a string: a string value itself, a number's decimal form, else nil.
    open var stringValue: String? {
        switch storedValue {
        case let string as NSString: return string as String
        case let number as NSNumber: return number.stringValue
        case let date as NSDate: return MetadataValueCoercion.iso8601String(date as Date)
        default: return nil
        }
    }

    /// The value as a number: a number value itself, or a string that parses as one.
    open var numberValue: NSNumber? {
        switch storedValue {
        case let number as NSNumber: return number
        case let string as NSString: return MetadataValueCoercion.number(from: string as String)
        default: return nil
        }
    }

    /// The value as a date: a date value itself, or a string in an ISO 8601 / year form.
    open var dateValue: Date? {
        switch storedValue {
        case let date as NSDate: return date as Date
        case let string as NSString: return MetadataValueCoercion.date(from: string as String)
        default: return nil
        }
    }

    /// The value as data: a data value itself, else nil.
    open var dataValue: Data? {
        switch storedValue {
        case let data as NSData: return data as Data
        default: return nil
        }
    }

    // MARK: Language and time

    /// The value's language as an IETF BCP 47 tag (e.g. `"en"`), when known.
    open var extendedLanguageTag: String? { storedExtendedLanguageTag }

    /// The value's locale, when known.
    open var locale: Locale? { storedLocale }

    /// The start of the item's time range, `.invalid` for untimed metadata.
    open var time: CMTime { storedTime }

    /// The duration of the item's time range, `.invalid` for untimed metadata.
    open var duration: CMTime { storedDuration }

    /// The date the item's time corresponds to (HLS date-range metadata), else nil.
    open var startDate: Date? { storedStartDate }

    // MARK: Copying

    /// Returns an immutable copy; an immutable item returns itself.
    open func copy(with zone: NSZone? = nil) -> Any {
        if type(of: self) == AVMetadataItem.self { return self }
        return AVMetadataItem(copying: self)
    }

    /// Returns an `AVMutableMetadataItem` with the same properties.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        AVMutableMetadataItem(copying: self)
    }

    /// A description in the shape of Apple's.
    open override var description: String {
        let keyText = storedKey.map { MetadataKeyCoding.displayString(forKey: $0) } ?? "(null)"
        return "<AVMetadataItem: identifier=\(identifier?.rawValue ?? "(null)"), "
            + "keySpace=\(storedKeySpace?.rawValue ?? "(null)"), key=\(keyText), "
            + "commonKey=\(commonKey?.rawValue ?? "(null)"), "
            + "extendedLanguageTag=\(storedExtendedLanguageTag ?? "(null)"), "
            + "dataType=\(storedDataType ?? "(null)"), value=\(String(describing: storedValue))>"
    }
}
