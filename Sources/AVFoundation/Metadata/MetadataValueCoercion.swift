// The string → number / date coercions behind AVMetadataItem.numberValue and dateValue.
import Foundation

enum MetadataValueCoercion {
    /// A number from a whole numeric string (integer or decimal, surrounding spaces allowed).
    static func number(from string: String) -> NSNumber? {
        let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        if let integer = Int64(trimmed) { return NSNumber(value: integer) }
        if trimmed.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0 == "e" || $0 == "E" }),
           let double = Double(trimmed) { return NSNumber(value: double) }
        return nil
    }

    /// A date from the forms metadata uses: ISO 8601 with or without time, zone, fraction
    /// ("2024-05-06T07:08:09Z", "2024-05-06T07:08:09+0200", "2024-05-06 07:08:09", "2024-05-06",
    /// "2024-05", "2024"). Times without a zone are UTC.
    static func date(from string: String) -> Date? {
        let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count >= 4, trimmed.prefix(4).allSatisfy(\.isNumber) else { return nil }
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return date }
        }
        return nil
    }

    private static let formats = [
        "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXXXX", "yyyy-MM-dd'T'HH:mm:ss.SSSXXXXX", "yyyy-MM-dd'T'HH:mm:ssXXXXX",
        "yyyy-MM-dd'T'HH:mm:ssZ", "yyyy-MM-dd'T'HH:mm:ss.SSSSSS", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mmXXXXX",
        "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ssXXXXX", "yyyy-MM-dd HH:mm:ss Z", "yyyy-MM-dd HH:mm:ss",
        "yyyy-MM-dd", "yyyy-MM", "yyyy",
    ]

    /// A date as ISO 8601 in UTC, for stringValue of date values.
    static func iso8601String(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
