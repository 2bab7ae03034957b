// AVMetadataItem's asynchronous loading: `try await item.load(.stringValue)`, and the classic
// `loadValuesAsynchronously(forKeys:)` / `statusOfValue(forKey:error:)`.
import Foundation

extension AVMetadataItem: AVAsynchronousKeyValueLoading {
    /// The keys an item can load. Every item this library makes has its value in memory (the
    /// asset reads its metadata once, whole), so each of them is always loaded.
    static let loadableKeys: Set<String> = [
        "value", "stringValue", "numberValue", "dateValue", "dataValue", "extraAttributes", "identifier", "key",
        "keySpace", "commonKey", "dataType", "extendedLanguageTag", "locale", "time", "duration", "startDate",
    ]

    /// `.loaded` for the item's properties ("value", "stringValue", "dataValue", …); `.failed`,
    /// with an error, for a key that is not one of its properties.
    public func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus {
        if AVMetadataItem.loadableKeys.contains(key) { return .loaded }
        outError?.pointee = AVError(.unknown, userInfo: [
            NSLocalizedFailureReasonErrorKey: "AVMetadataItem has no loadable key “\(key)”.",
        ]) as NSError
        return .failed
    }

    /// Calls `handler` once, on a background queue: the values are already loaded.
    public func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (@Sendable () -> Void)? = nil) {
        guard let handler else { return }
        DispatchQueue.global(qos: .userInitiated).async { handler() }
    }
}

extension AVPartialAsyncProperty where Root: AVMetadataItem {
    /// The item's value.
    public static var value: AVAsyncProperty<Root, (any NSCopying & NSObjectProtocol)?> { .init(key: "value") { $0.value } }
    /// The value as a string.
    public static var stringValue: AVAsyncProperty<Root, String?> { .init(key: "stringValue") { $0.stringValue } }
    /// The value as a number.
    public static var numberValue: AVAsyncProperty<Root, NSNumber?> { .init(key: "numberValue") { $0.numberValue } }
    /// The value as a date.
    public static var dateValue: AVAsyncProperty<Root, Date?> { .init(key: "dateValue") { $0.dateValue } }
    /// The value as data.
    public static var dataValue: AVAsyncProperty<Root, Data?> { .init(key: "dataValue") { $0.dataValue } }
    /// The value's extra attributes.
    public static var extraAttributes: AVAsyncProperty<Root, [AVMetadataExtraAttributeKey: Any]?> {
        .init(key: "extraAttributes") { $0.extraAttributes }
    }
}
