// AVMutableMetadataItem: the editable metadata item (what export and writers take).
import Foundation

/// A metadata item whose every property can be set.
///
/// Setting `identifier` sets `keySpace` and `key`; setting either of those changes the
/// identifier, which is always derived from them.
open class AVMutableMetadataItem: AVMetadataItem, @unchecked Sendable {
    /// Creates an empty item.
    public override init() { super.init() }

    override init(copying other: AVMetadataItem) { super.init(copying: other) }

    /// Creates an empty item (Objective-C's `+metadataItem`).
    public class func metadataItem() -> AVMutableMetadataItem { AVMutableMetadataItem() }

    /// The identifier; setting it sets the key space and key it names (nil clears both).
    open override var identifier: AVMetadataIdentifier? {
        get { super.identifier }
        set {
            guard let newValue, let keySpace = AVMetadataItem.keySpace(forIdentifier: newValue) else {
                storedKeySpace = nil
                storedKey = nil
                return
            }
            storedKeySpace = keySpace
            storedKey = AVMetadataItem.key(forIdentifier: newValue) as? (any NSCopying & NSObjectProtocol)
        }
    }

    /// The key (an `NSString` or an `NSNumber` four-character code).
    open override var key: (any NSCopying & NSObjectProtocol)? {
        get { storedKey }
        set { storedKey = newValue }
    }

    /// The key space.
    open override var keySpace: AVMetadataKeySpace? {
        get { storedKeySpace }
        set { storedKeySpace = newValue }
    }

    /// The value.
    open override var value: (any NSCopying & NSObjectProtocol)? {
        get { storedValue }
        set { storedValue = newValue }
    }

    /// The data type (a `kCMMetadataBaseDataType_…` string).
    open override var dataType: String? {
        get { storedDataType }
        set { storedDataType = newValue }
    }

    /// The IETF BCP 47 language tag.
    open override var extendedLanguageTag: String? {
        get { storedExtendedLanguageTag }
        set { storedExtendedLanguageTag = newValue }
    }

    /// The locale.
    open override var locale: Locale? {
        get { storedLocale }
        set { storedLocale = newValue }
    }

    /// The start time.
    open override var time: CMTime {
        get { storedTime }
        set { storedTime = newValue }
    }

    /// The duration.
    open override var duration: CMTime {
        get { storedDuration }
        set { storedDuration = newValue }
    }

    /// The start date.
    open override var startDate: Date? {
        get { storedStartDate }
        set { storedStartDate = newValue }
    }

    /// The extra attributes.
    open override var extraAttributes: [AVMetadataExtraAttributeKey: Any]? {
        get { storedExtraAttributes }
        set { storedExtraAttributes = newValue }
    }
}
