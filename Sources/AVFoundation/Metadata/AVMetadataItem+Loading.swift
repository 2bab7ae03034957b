// AVMetadataItem's async loading, `try await item.load(.stringValue)`.
//
// PROVISIONAL: written before AVAsyncProperty<Root, Value> existed on this branch. When the
// assets branch's AVAsyncProperty is merged, replace `AVMetadataItem.LoadableProperty` with it
// (the call sites `item.load(.value)` etc. stay the same).
import Foundation

extension AVMetadataItem {
    /// A property of a metadata item that can be loaded asynchronously.
    public struct LoadableProperty<Value>: @unchecked Sendable {
        let get: @Sendable (AVMetadataItem) -> Value
    }

    /// Loads a property. A read item's values are already in memory, so this never fails.
    public func load<T>(_ property: LoadableProperty<T>) async throws -> T {
        property.get(self)
    }
}

extension AVMetadataItem.LoadableProperty where Value == (any NSCopying & NSObjectProtocol)? {
    /// The item's value.
    public static var value: Self { Self { $0.value } }
}

extension AVMetadataItem.LoadableProperty where Value == String? {
    /// The value as a string.
    public static var stringValue: Self { Self { $0.stringValue } }
}

extension AVMetadataItem.LoadableProperty where Value == NSNumber? {
    /// The value as a number.
    public static var numberValue: Self { Self { $0.numberValue } }
}

extension AVMetadataItem.LoadableProperty where Value == Date? {
    /// The value as a date.
    public static var dateValue: Self { Self { $0.dateValue } }
}

extension AVMetadataItem.LoadableProperty where Value == Data? {
    /// The value as data.
    public static var dataValue: Self { Self { $0.dataValue } }
}

extension AVMetadataItem.LoadableProperty where Value == [AVMetadataExtraAttributeKey: Any]? {
    /// The extra attributes.
    public static var extraAttributes: Self { Self { $0.extraAttributes } }
}
