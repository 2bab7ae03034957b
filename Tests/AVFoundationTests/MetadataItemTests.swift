// AVMetadataItem's identifiers, keys, coercions, copying and filters, per Apple's documentation.
import Testing
import Foundation
@testable import AVFoundation

@Suite("AVMetadataItem")
struct MetadataItemTests {
    @Test func constantsHaveApplesRawValues() {
        #expect(AVMetadataKeySpace.common.rawValue == "comn")
        #expect(AVMetadataKeySpace.iTunes.rawValue == "itsk")
        #expect(AVMetadataKeySpace.id3.rawValue == "org.id3")
        #expect(AVMetadataFormat.iTunesMetadata.rawValue == "com.apple.itunes")
        #expect(AVMetadataFormat.isoUserData.rawValue == "org.mp4ra")
        #expect(AVMetadataIdentifier.iTunesMetadataSongName.rawValue == "itsk/%A9nam")
        #expect(AVMetadataIdentifier.quickTimeUserDataFullName.rawValue == "udta/%A9nam")
        #expect(AVMetadataIdentifier.quickTimeMetadataTitle.rawValue == "mdta/com.apple.quicktime.title")
        #expect(AVMetadataIdentifier.id3MetadataTitleDescription.rawValue == "id3/TIT2")
        #expect(AVMetadataIdentifier.commonIdentifierTitle.rawValue == "common/title")
        #expect(AVMetadataKey.iTunesMetadataKeySongName.rawValue == "©nam")
        #expect(AVMetadataKey.commonKeyTitle.rawValue == "title")
        #expect(kCMMetadataBaseDataType_UTF8 == "com.apple.metadata.datatype.UTF-8")
    }

    @Test func identifierConversions() throws {
        let code = NSNumber(value: Int32(bitPattern: 0xA96E_616D))
        #expect(AVMetadataItem.identifier(forKey: code, keySpace: .iTunes) == .iTunesMetadataSongName)
        #expect(AVMetadataItem.identifier(forKey: "©nam", keySpace: .iTunes) == .iTunesMetadataSongName)
        #expect(AVMetadataItem.identifier(forKey: AVMetadataKey.commonKeyTitle.rawValue, keySpace: .common)
            == .commonIdentifierTitle)
        #expect(AVMetadataItem.keySpace(forIdentifier: .id3MetadataTitleDescription) == .id3)
        #expect(AVMetadataItem.keySpace(forIdentifier: .commonIdentifierArtist) == .common)
        let key = try #require(AVMetadataItem.key(forIdentifier: .iTunesMetadataSongName) as? NSNumber)
        #expect(key.int32Value == -1452383891)   // Learning AV Foundation's test vector for ©nam
        #expect(AVMetadataItem.key(forIdentifier: .quickTimeMetadataTitle) as? String == "com.apple.quicktime.title")
        let v22 = AVMetadataItem.identifier(forKey: NSNumber(value: 0x0054_5432), keySpace: .id3)
        #expect(v22?.rawValue == "id3/%00TT2")
    }

    @Test func coercionsAndCommonKey() {
        let genre = AVMetadataItem(key: NSNumber(value: Int32(bitPattern: 0x5443_4F4E)), keySpace: .id3,
                                   value: "17" as NSString, dataType: (kCMMetadataBaseDataType_UTF8 as String))
        #expect(genre.numberValue == 17)               // book: numeric TCON strings parse
        #expect(genre.commonKey == .commonKeyType)
        #expect(genre.identifier == .id3MetadataContentType)
        let date = AVMetadataItem(key: "com.apple.quicktime.creationdate" as NSString, keySpace: .quickTimeMetadata,
                                  value: "2021-07-30T04:06:08+0000" as NSString, dataType: (kCMMetadataBaseDataType_UTF8 as String))
        #expect(date.dateValue == Date(timeIntervalSince1970: 1_627_617_968))
        #expect(date.commonKey == .commonKeyCreationDate)
        #expect(date.dataValue == nil)
    }

    @Test func mutableCopyKeepsPropertiesAndIdentifierDrivesKey() throws {
        let item = AVMetadataItem(key: "title" as NSString, keySpace: .common, value: "A" as NSString,
                                  dataType: (kCMMetadataBaseDataType_UTF8 as String), extendedLanguageTag: "en")
        let mutable = try #require(item.mutableCopy() as? AVMutableMetadataItem)
        #expect(mutable.stringValue == "A" && mutable.extendedLanguageTag == "en" && mutable.keySpace == .common)
        mutable.identifier = .iTunesMetadataArtist
        #expect(mutable.keySpace == .iTunes)
        #expect((mutable.key as? NSNumber).map { UInt32(bitPattern: $0.int32Value) } == 0xA941_5254)
        #expect(mutable.commonKey == .commonKeyArtist)
        mutable.value = "B" as NSString
        #expect(mutable.stringValue == "B" && item.stringValue == "A")
        #expect((mutable.copy() as? AVMetadataItem)?.stringValue == "B")
    }

    @Test func filters() {
        let title = AVMetadataItem(key: NSNumber(value: Int32(bitPattern: 0xA96E_616D)), keySpace: .iTunes,
                                   value: "T" as NSString, dataType: (kCMMetadataBaseDataType_UTF8 as String))
        let french = AVMetadataItem(key: "com.apple.quicktime.title" as NSString, keySpace: .quickTimeMetadata,
                                    value: "Titre" as NSString, dataType: (kCMMetadataBaseDataType_UTF8 as String),
                                    extendedLanguageTag: "fr")
        let english = AVMetadataItem(key: "com.apple.quicktime.title" as NSString, keySpace: .quickTimeMetadata,
                                     value: "Title" as NSString, dataType: (kCMMetadataBaseDataType_UTF8 as String),
                                     extendedLanguageTag: "en-GB")
        let location = AVMetadataItem(key: "com.apple.quicktime.location.ISO6709" as NSString, keySpace: .quickTimeMetadata,
                                      value: "+48.8577+002.2950/" as NSString, dataType: (kCMMetadataBaseDataType_UTF8 as String))
        let all = [title, french, english, location]
        #expect(AVMetadataItem.metadataItems(from: all, filteredByIdentifier: .commonIdentifierTitle).count == 3)
        #expect(AVMetadataItem.metadataItems(from: all, withKey: AVMetadataKey.commonKeyTitle, keySpace: .common).count == 3)
        #expect(AVMetadataItem.metadataItems(from: all, withKey: "©nam", keySpace: .iTunes).first === title)
        #expect(AVMetadataItem.metadataItems(from: all, withKey: NSNumber(value: UInt32(0xA96E_616D)), keySpace: .iTunes).count == 1)
        #expect(AVMetadataItem.metadataItems(from: all, with: Locale(identifier: "fr")).first === french)
        let sorted = AVMetadataItem.metadataItems(from: all, filteredAndSortedAccordingToPreferredLanguages: ["en", "fr"])
        #expect(sorted.map(\.stringValue) == ["Title", "Titre"])
        let shared = AVMetadataItem.metadataItems(from: all, filteredBy: .forSharing())
        #expect(shared.count == 3 && !shared.contains { $0 === location })
    }

    @Test func timedGroups() throws {
        let range = CMTimeRange(start: CMTime(value: 1, timescale: 1), duration: CMTime(value: 2, timescale: 1))
        let group = AVTimedMetadataGroup(items: [], timeRange: range)
        let mutable = try #require(group.mutableCopy() as? AVMutableTimedMetadataGroup)
        mutable.items = [AVMutableMetadataItem()]
        #expect(mutable.items.count == 1 && group.items.isEmpty && mutable.timeRange == range)
    }
}

@Suite("AVMetadataItem loading")
struct MetadataItemLoadingTests {
    @Test func loadsValuesAsynchronously() async throws {
        let item = AVMetadataItem(key: "title" as NSString, keySpace: .common, value: "42" as NSString,
                                  dataType: (kCMMetadataBaseDataType_UTF8 as String))
        #expect(try await item.load(.stringValue) == "42")
        #expect(try await item.load(.numberValue) == 42)
        #expect(try await item.load(.dataValue) == nil)
        let value = try await item.load(.value)
        #expect((value as? NSString) == "42")   // `as? String` works at run time but warns on Linux
    }
}
