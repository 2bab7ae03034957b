// Foundation's URL additions that UniformTypeIdentifiers declares on Apple platforms: building a
// file name with the extension a content type prefers.
import Foundation

extension URL {
    /// The URL with `partialName` appended as a path component, followed by the preferred
    /// filename extension of `contentType` — unless `partialName` already ends in an extension
    /// of a type that conforms to `contentType` (`"clip.mov"` stays as it is for `.movie`).
    public func appendingPathComponent(_ partialName: String, conformingTo contentType: UTType) -> URL {
        appendingPathComponent(URL.fileName(partialName, conformingTo: contentType), isDirectory: false)
    }

    /// Appends `partialName` and, where needed, the preferred extension of `contentType`.
    public mutating func appendPathComponent(_ partialName: String, conformingTo contentType: UTType) {
        self = appendingPathComponent(partialName, conformingTo: contentType)
    }

    /// The URL with the preferred filename extension of `contentType` appended; unchanged when
    /// the type has no preferred extension.
    public func appendingPathExtension(for contentType: UTType) -> URL {
        guard let ext = contentType.preferredFilenameExtension else { return self }
        return appendingPathExtension(ext)
    }

    /// Appends the preferred filename extension of `contentType`.
    public mutating func appendPathExtension(for contentType: UTType) {
        self = appendingPathExtension(for: contentType)
    }

    private static func fileName(_ partialName: String, conformingTo contentType: UTType) -> String {
        let ext = (partialName as NSString).pathExtension
        if !ext.isEmpty,
           UTType.types(tag: ext, tagClass: .filenameExtension, conformingTo: contentType).contains(where: \.isDeclared) {
            return partialName
        }
        guard let preferred = contentType.preferredFilenameExtension else { return partialName }
        return partialName + "." + preferred
    }
}
