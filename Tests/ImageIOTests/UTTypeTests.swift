import Foundation
import Testing
import UniformTypeIdentifiers

@Suite("UTType")
struct UTTypeTests {
    @Test func pngConformanceChain() {
        #expect(UTType.png.identifier == "public.png")
        #expect(UTType.png.conforms(to: .image))
        #expect(UTType.png.conforms(to: .data) && UTType.png.conforms(to: .content) && UTType.png.conforms(to: .item))
        #expect(!UTType.png.conforms(to: .movie))
        #expect(UTType.png.supertypes == [.image, .data, .content, .item])
        #expect(UTType.png.conforms(to: .png))
    }

    @Test func subtypeAndSupertypeAreStrict() {
        #expect(UTType.jpeg.isSubtype(of: .image) && !UTType.jpeg.isSubtype(of: .jpeg))
        #expect(UTType.image.isSupertype(of: .jpeg) && !UTType.image.isSupertype(of: .image))
        #expect(UTType.mpeg4Audio.conforms(to: .audio) && UTType.mpeg4Audio.conforms(to: .mpeg4Movie))
        #expect(UTType.quickTimeMovie.conforms(to: .movie) && UTType.movie.conforms(to: .audiovisualContent))
        #expect(UTType.heic.conforms(to: .image) && UTType.json.conforms(to: .text) && UTType.plainText.conforms(to: .text))
    }

    @Test func filenameExtensionLookups() {
        #expect(UTType(filenameExtension: "jpg") == .jpeg)
        #expect(UTType(filenameExtension: "JPEG") == .jpeg)
        #expect(UTType(filenameExtension: "png") == .png)
        #expect(UTType(filenameExtension: "mov") == .quickTimeMovie)
        #expect(UTType(filenameExtension: "mp4") == .mpeg4Movie)
        #expect(UTType(filenameExtension: "m4a") == .mpeg4Audio)
        #expect(UTType(filenameExtension: "gif", conformingTo: .image) == .gif)
        #expect(UTType(filenameExtension: "") == nil)
        #expect(UTType.jpeg.preferredFilenameExtension == "jpeg")
        #expect(UTType.tiff.tags[.filenameExtension] == ["tiff", "tif"])
    }

    @Test func mimeTypeLookups() {
        #expect(UTType(mimeType: "image/png") == .png)
        #expect(UTType(mimeType: "video/quicktime") == .quickTimeMovie)
        #expect(UTType(mimeType: "audio/mpeg") == .mp3)
        #expect(UTType.png.preferredMIMEType == "image/png")
        #expect(UTType.webP.preferredMIMEType == "image/webp" && UTType.webP.identifier == "org.webmproject.webp")
    }

    @Test func unknownTagsGiveDynamicTypes() throws {
        let t = try #require(UTType(filenameExtension: "zzqx"))
        #expect(t.isDynamic && !t.isDeclared && !t.isPublic)
        #expect(t.identifier.hasPrefix("dyn."))
        #expect(t.conforms(to: .data))
        #expect(t.preferredFilenameExtension == "zzqx")
        #expect(UTType(t.identifier) == t)
        // A known extension that does not meet the required conformance is dynamic too.
        let notAudio = try #require(UTType(filenameExtension: "png", conformingTo: .audio))
        #expect(notAudio.isDynamic && notAudio.conforms(to: .audio) && notAudio != .png)
    }

    @Test func identifierInitialiser() {
        #expect(UTType("public.jpeg") == .jpeg)
        #expect(UTType("PUBLIC.PNG") == .png)
        #expect(UTType("com.example.not-declared") == nil)
        #expect(UTType.png.isDeclared && UTType.png.isPublic && UTType.png.isSystemDeclared)
        #expect(!UTType.gif.isPublic)
    }

    @Test func codableDescriptionAndHashing() throws {
        let data = try JSONEncoder().encode([UTType.png, .mpeg4Movie])
        #expect(try JSONDecoder().decode([UTType].self, from: data) == [.png, .mpeg4Movie])
        #expect(UTType.png.description == "public.png")
        #expect(Set([UTType.png, UTType("public.png")!]).count == 1)
    }

    @Test func exportedTypesJoinTheRegistry() throws {
        let custom = UTType(exportedAs: "com.example.linux-test-image", conformingTo: .image)
        #expect(custom.conforms(to: .image) && custom.conforms(to: .data))
        #expect(UTType("com.example.linux-test-image") == custom)
    }

    @Test func legacyConstants() {
        #expect((kUTTypePNG as String) == UTType.png.identifier && (kUTTypeJPEG as String) == UTType.jpeg.identifier)
        #expect(kUTTypeGIF == "com.compuserve.gif" && kUTTypeBMP == "com.microsoft.bmp" && kUTTypeTIFF == "public.tiff")
        #expect(kUTTypeQuickTimeMovie == "com.apple.quicktime-movie" && kUTTypeMPEG4 == "public.mpeg-4")
        #expect(kUTTypeMPEG4Audio == "public.mpeg-4-audio" && kUTTypeAudiovisualContent == "public.audiovisual-content")
        #expect(kUTTypeImage == "public.image" && kUTTypeMovie == "public.movie")
        #expect(kUTTypeAudio == "public.audio" && kUTTypeVideo == "public.video")
        #expect(UTTypeConformsTo(kUTTypePNG, kUTTypeImage) && !UTTypeConformsTo(kUTTypePNG, kUTTypeMovie))
        #expect(UTTagClass.filenameExtension.rawValue == (kUTTagClassFilenameExtension as String))
    }
}
