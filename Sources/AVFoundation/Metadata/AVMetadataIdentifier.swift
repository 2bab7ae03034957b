// Apple's AVMetadataIdentifier (AVMetadataIdentifiers.h): "<key space>/<key>", the key's bytes
// outside printable ASCII (and '%', '/') percent-encoded, e.g. "itsk/%A9nam", "id3/%00TT2".
import Foundation

/// An identifier that names a key within a key space in one string, e.g. `"itsk/%A9nam"`.
public struct AVMetadataIdentifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The identifier string.
    public let rawValue: String
    /// Creates an identifier from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates an identifier from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The raw value.
    public var description: String { rawValue }
}

/// Common identifiers.
public extension AVMetadataIdentifier {
    /// The common identifier for `title`.
    static let commonIdentifierTitle = AVMetadataIdentifier("common/title")
    /// The common identifier for `creator`.
    static let commonIdentifierCreator = AVMetadataIdentifier("common/creator")
    /// The common identifier for `subject`.
    static let commonIdentifierSubject = AVMetadataIdentifier("common/subject")
    /// The common identifier for `description`.
    static let commonIdentifierDescription = AVMetadataIdentifier("common/description")
    /// The common identifier for `publisher`.
    static let commonIdentifierPublisher = AVMetadataIdentifier("common/publisher")
    /// The common identifier for `contributor`.
    static let commonIdentifierContributor = AVMetadataIdentifier("common/contributor")
    /// The common identifier for `creationDate`.
    static let commonIdentifierCreationDate = AVMetadataIdentifier("common/creationDate")
    /// The common identifier for `lastModifiedDate`.
    static let commonIdentifierLastModifiedDate = AVMetadataIdentifier("common/lastModifiedDate")
    /// The common identifier for `type`.
    static let commonIdentifierType = AVMetadataIdentifier("common/type")
    /// The common identifier for `format`.
    static let commonIdentifierFormat = AVMetadataIdentifier("common/format")
    /// The common identifier for `identifier`.
    static let commonIdentifierIdentifier = AVMetadataIdentifier("common/identifier")
    /// The common identifier for `source`.
    static let commonIdentifierSource = AVMetadataIdentifier("common/source")
    /// The common identifier for `language`.
    static let commonIdentifierLanguage = AVMetadataIdentifier("common/language")
    /// The common identifier for `relation`.
    static let commonIdentifierRelation = AVMetadataIdentifier("common/relation")
    /// The common identifier for `location`.
    static let commonIdentifierLocation = AVMetadataIdentifier("common/location")
    /// The common identifier for `copyrights`.
    static let commonIdentifierCopyrights = AVMetadataIdentifier("common/copyrights")
    /// The common identifier for `albumName`.
    static let commonIdentifierAlbumName = AVMetadataIdentifier("common/albumName")
    /// The common identifier for `author`.
    static let commonIdentifierAuthor = AVMetadataIdentifier("common/author")
    /// The common identifier for `artist`.
    static let commonIdentifierArtist = AVMetadataIdentifier("common/artist")
    /// The common identifier for `artwork`.
    static let commonIdentifierArtwork = AVMetadataIdentifier("common/artwork")
    /// The common identifier for `make`.
    static let commonIdentifierMake = AVMetadataIdentifier("common/make")
    /// The common identifier for `model`.
    static let commonIdentifierModel = AVMetadataIdentifier("common/model")
    /// The common identifier for `software`.
    static let commonIdentifierSoftware = AVMetadataIdentifier("common/software")
    /// The common identifier for `accessibilityDescription`.
    static let commonIdentifierAccessibilityDescription = AVMetadataIdentifier("common/accessibilityDescription")
}

/// iTunes identifiers.
public extension AVMetadataIdentifier {
    /// The iTunes identifier for `©alb`.
    static let iTunesMetadataAlbum = AVMetadataIdentifier("itsk/%A9alb")
    /// The iTunes identifier for `©ART`.
    static let iTunesMetadataArtist = AVMetadataIdentifier("itsk/%A9ART")
    /// The iTunes identifier for `©cmt`.
    static let iTunesMetadataUserComment = AVMetadataIdentifier("itsk/%A9cmt")
    /// The iTunes identifier for `covr`.
    static let iTunesMetadataCoverArt = AVMetadataIdentifier("itsk/covr")
    /// The iTunes identifier for `cprt`.
    static let iTunesMetadataCopyright = AVMetadataIdentifier("itsk/cprt")
    /// The iTunes identifier for `©day`.
    static let iTunesMetadataReleaseDate = AVMetadataIdentifier("itsk/%A9day")
    /// The iTunes identifier for `©enc`.
    static let iTunesMetadataEncodedBy = AVMetadataIdentifier("itsk/%A9enc")
    /// The iTunes identifier for `gnre`.
    static let iTunesMetadataPredefinedGenre = AVMetadataIdentifier("itsk/gnre")
    /// The iTunes identifier for `©gen`.
    static let iTunesMetadataUserGenre = AVMetadataIdentifier("itsk/%A9gen")
    /// The iTunes identifier for `©nam`.
    static let iTunesMetadataSongName = AVMetadataIdentifier("itsk/%A9nam")
    /// The iTunes identifier for `©st3`.
    static let iTunesMetadataTrackSubTitle = AVMetadataIdentifier("itsk/%A9st3")
    /// The iTunes identifier for `©too`.
    static let iTunesMetadataEncodingTool = AVMetadataIdentifier("itsk/%A9too")
    /// The iTunes identifier for `©wrt`.
    static let iTunesMetadataComposer = AVMetadataIdentifier("itsk/%A9wrt")
    /// The iTunes identifier for `aART`.
    static let iTunesMetadataAlbumArtist = AVMetadataIdentifier("itsk/aART")
    /// The iTunes identifier for `akID`.
    static let iTunesMetadataAccountKind = AVMetadataIdentifier("itsk/akID")
    /// The iTunes identifier for `apID`.
    static let iTunesMetadataAppleID = AVMetadataIdentifier("itsk/apID")
    /// The iTunes identifier for `atID`.
    static let iTunesMetadataArtistID = AVMetadataIdentifier("itsk/atID")
    /// The iTunes identifier for `cnID`.
    static let iTunesMetadataSongID = AVMetadataIdentifier("itsk/cnID")
    /// The iTunes identifier for `cpil`.
    static let iTunesMetadataDiscCompilation = AVMetadataIdentifier("itsk/cpil")
    /// The iTunes identifier for `disk`.
    static let iTunesMetadataDiscNumber = AVMetadataIdentifier("itsk/disk")
    /// The iTunes identifier for `geID`.
    static let iTunesMetadataGenreID = AVMetadataIdentifier("itsk/geID")
    /// The iTunes identifier for `©grp`.
    static let iTunesMetadataGrouping = AVMetadataIdentifier("itsk/%A9grp")
    /// The iTunes identifier for `plID`.
    static let iTunesMetadataPlaylistID = AVMetadataIdentifier("itsk/plID")
    /// The iTunes identifier for `rtng`.
    static let iTunesMetadataContentRating = AVMetadataIdentifier("itsk/rtng")
    /// The iTunes identifier for `tmpo`.
    static let iTunesMetadataBeatsPerMin = AVMetadataIdentifier("itsk/tmpo")
    /// The iTunes identifier for `trkn`.
    static let iTunesMetadataTrackNumber = AVMetadataIdentifier("itsk/trkn")
    /// The iTunes identifier for `©aut`.
    static let iTunesMetadataAuthor = AVMetadataIdentifier("itsk/%A9aut")
    /// The iTunes identifier for `©con`.
    static let iTunesMetadataConductor = AVMetadataIdentifier("itsk/%A9con")
    /// The iTunes identifier for `©des`.
    static let iTunesMetadataDescription = AVMetadataIdentifier("itsk/%A9des")
    /// The iTunes identifier for `©dir`.
    static let iTunesMetadataDirector = AVMetadataIdentifier("itsk/%A9dir")
    /// The iTunes identifier for `©equ`.
    static let iTunesMetadataEQ = AVMetadataIdentifier("itsk/%A9equ")
    /// The iTunes identifier for `©lyr`.
    static let iTunesMetadataLyrics = AVMetadataIdentifier("itsk/%A9lyr")
    /// The iTunes identifier for `©ope`.
    static let iTunesMetadataOriginalArtist = AVMetadataIdentifier("itsk/%A9ope")
    /// The iTunes identifier for `©prf`.
    static let iTunesMetadataPerformer = AVMetadataIdentifier("itsk/%A9prf")
    /// The iTunes identifier for `©prd`.
    static let iTunesMetadataProducer = AVMetadataIdentifier("itsk/%A9prd")
    /// The iTunes identifier for `©pub`.
    static let iTunesMetadataPublisher = AVMetadataIdentifier("itsk/%A9pub")
    /// The iTunes identifier for `©mak`.
    static let iTunesMetadataRecordCompany = AVMetadataIdentifier("itsk/%A9mak")
    /// The iTunes identifier for `©sol`.
    static let iTunesMetadataSoloist = AVMetadataIdentifier("itsk/%A9sol")
    /// The iTunes identifier for `©thx`.
    static let iTunesMetadataThanks = AVMetadataIdentifier("itsk/%A9thx")
    /// The iTunes identifier for `©ard`.
    static let iTunesMetadataArtDirector = AVMetadataIdentifier("itsk/%A9ard")
    /// The iTunes identifier for `©arg`.
    static let iTunesMetadataArranger = AVMetadataIdentifier("itsk/%A9arg")
    /// The iTunes identifier for `©phg`.
    static let iTunesMetadataPhonogram = AVMetadataIdentifier("itsk/%A9phg")
    /// The iTunes identifier for `©sne`.
    static let iTunesMetadataSoundEngineer = AVMetadataIdentifier("itsk/%A9sne")
    /// The iTunes identifier for `©lnt`.
    static let iTunesMetadataLinerNotes = AVMetadataIdentifier("itsk/%A9lnt")
    /// The iTunes identifier for `©xpd`.
    static let iTunesMetadataExecProducer = AVMetadataIdentifier("itsk/%A9xpd")
}

/// QuickTime user data identifiers.
public extension AVMetadataIdentifier {
    /// The QuickTime user data identifier for `©alb`.
    static let quickTimeUserDataAlbum = AVMetadataIdentifier("udta/%A9alb")
    /// The QuickTime user data identifier for `©arg`.
    static let quickTimeUserDataArranger = AVMetadataIdentifier("udta/%A9arg")
    /// The QuickTime user data identifier for `©ART`.
    static let quickTimeUserDataArtist = AVMetadataIdentifier("udta/%A9ART")
    /// The QuickTime user data identifier for `©aut`.
    static let quickTimeUserDataAuthor = AVMetadataIdentifier("udta/%A9aut")
    /// The QuickTime user data identifier for `chpl`.
    static let quickTimeUserDataChapter = AVMetadataIdentifier("udta/chpl")
    /// The QuickTime user data identifier for `©cmt`.
    static let quickTimeUserDataComment = AVMetadataIdentifier("udta/%A9cmt")
    /// The QuickTime user data identifier for `©com`.
    static let quickTimeUserDataComposer = AVMetadataIdentifier("udta/%A9com")
    /// The QuickTime user data identifier for `©cpy`.
    static let quickTimeUserDataCopyright = AVMetadataIdentifier("udta/%A9cpy")
    /// The QuickTime user data identifier for `©day`.
    static let quickTimeUserDataCreationDate = AVMetadataIdentifier("udta/%A9day")
    /// The QuickTime user data identifier for `©des`.
    static let quickTimeUserDataDescription = AVMetadataIdentifier("udta/%A9des")
    /// The QuickTime user data identifier for `©dir`.
    static let quickTimeUserDataDirector = AVMetadataIdentifier("udta/%A9dir")
    /// The QuickTime user data identifier for `©dis`.
    static let quickTimeUserDataDisclaimer = AVMetadataIdentifier("udta/%A9dis")
    /// The QuickTime user data identifier for `©enc`.
    static let quickTimeUserDataEncodedBy = AVMetadataIdentifier("udta/%A9enc")
    /// The QuickTime user data identifier for `©nam`.
    static let quickTimeUserDataFullName = AVMetadataIdentifier("udta/%A9nam")
    /// The QuickTime user data identifier for `©gen`.
    static let quickTimeUserDataGenre = AVMetadataIdentifier("udta/%A9gen")
    /// The QuickTime user data identifier for `©hst`.
    static let quickTimeUserDataHostComputer = AVMetadataIdentifier("udta/%A9hst")
    /// The QuickTime user data identifier for `©inf`.
    static let quickTimeUserDataInformation = AVMetadataIdentifier("udta/%A9inf")
    /// The QuickTime user data identifier for `©key`.
    static let quickTimeUserDataKeywords = AVMetadataIdentifier("udta/%A9key")
    /// The QuickTime user data identifier for `©mak`.
    static let quickTimeUserDataMake = AVMetadataIdentifier("udta/%A9mak")
    /// The QuickTime user data identifier for `©mod`.
    static let quickTimeUserDataModel = AVMetadataIdentifier("udta/%A9mod")
    /// The QuickTime user data identifier for `©ope`.
    static let quickTimeUserDataOriginalArtist = AVMetadataIdentifier("udta/%A9ope")
    /// The QuickTime user data identifier for `©fmt`.
    static let quickTimeUserDataOriginalFormat = AVMetadataIdentifier("udta/%A9fmt")
    /// The QuickTime user data identifier for `©src`.
    static let quickTimeUserDataOriginalSource = AVMetadataIdentifier("udta/%A9src")
    /// The QuickTime user data identifier for `©prf`.
    static let quickTimeUserDataPerformers = AVMetadataIdentifier("udta/%A9prf")
    /// The QuickTime user data identifier for `©prd`.
    static let quickTimeUserDataProducer = AVMetadataIdentifier("udta/%A9prd")
    /// The QuickTime user data identifier for `©pub`.
    static let quickTimeUserDataPublisher = AVMetadataIdentifier("udta/%A9pub")
    /// The QuickTime user data identifier for `©PRD`.
    static let quickTimeUserDataProduct = AVMetadataIdentifier("udta/%A9PRD")
    /// The QuickTime user data identifier for `©swr`.
    static let quickTimeUserDataSoftware = AVMetadataIdentifier("udta/%A9swr")
    /// The QuickTime user data identifier for `©req`.
    static let quickTimeUserDataSpecialPlaybackRequirements = AVMetadataIdentifier("udta/%A9req")
    /// The QuickTime user data identifier for `©trk`.
    static let quickTimeUserDataTrack = AVMetadataIdentifier("udta/%A9trk")
    /// The QuickTime user data identifier for `©wrn`.
    static let quickTimeUserDataWarning = AVMetadataIdentifier("udta/%A9wrn")
    /// The QuickTime user data identifier for `©wrt`.
    static let quickTimeUserDataWriter = AVMetadataIdentifier("udta/%A9wrt")
    /// The QuickTime user data identifier for `©url`.
    static let quickTimeUserDataURLLink = AVMetadataIdentifier("udta/%A9url")
    /// The QuickTime user data identifier for `©xyz`.
    static let quickTimeUserDataLocationISO6709 = AVMetadataIdentifier("udta/%A9xyz")
    /// The QuickTime user data identifier for `tnam`.
    static let quickTimeUserDataTrackName = AVMetadataIdentifier("udta/tnam")
    /// The QuickTime user data identifier for `©phg`.
    static let quickTimeUserDataPhonogramRights = AVMetadataIdentifier("udta/%A9phg")
    /// The QuickTime user data identifier for `tagc`.
    static let quickTimeUserDataTaggedCharacteristic = AVMetadataIdentifier("udta/tagc")
    /// The QuickTime user data identifier for `adsc`.
    static let quickTimeUserDataAccessibilityDescription = AVMetadataIdentifier("udta/adsc")
}

/// QuickTime metadata identifiers.
public extension AVMetadataIdentifier {
    /// The QuickTime metadata identifier for `com.apple.quicktime.author`.
    static let quickTimeMetadataAuthor = AVMetadataIdentifier("mdta/com.apple.quicktime.author")
    /// The QuickTime metadata identifier for `com.apple.quicktime.comment`.
    static let quickTimeMetadataComment = AVMetadataIdentifier("mdta/com.apple.quicktime.comment")
    /// The QuickTime metadata identifier for `com.apple.quicktime.copyright`.
    static let quickTimeMetadataCopyright = AVMetadataIdentifier("mdta/com.apple.quicktime.copyright")
    /// The QuickTime metadata identifier for `com.apple.quicktime.creationdate`.
    static let quickTimeMetadataCreationDate = AVMetadataIdentifier("mdta/com.apple.quicktime.creationdate")
    /// The QuickTime metadata identifier for `com.apple.quicktime.director`.
    static let quickTimeMetadataDirector = AVMetadataIdentifier("mdta/com.apple.quicktime.director")
    /// The QuickTime metadata identifier for `com.apple.quicktime.displayname`.
    static let quickTimeMetadataDisplayName = AVMetadataIdentifier("mdta/com.apple.quicktime.displayname")
    /// The QuickTime metadata identifier for `com.apple.quicktime.information`.
    static let quickTimeMetadataInformation = AVMetadataIdentifier("mdta/com.apple.quicktime.information")
    /// The QuickTime metadata identifier for `com.apple.quicktime.keywords`.
    static let quickTimeMetadataKeywords = AVMetadataIdentifier("mdta/com.apple.quicktime.keywords")
    /// The QuickTime metadata identifier for `com.apple.quicktime.producer`.
    static let quickTimeMetadataProducer = AVMetadataIdentifier("mdta/com.apple.quicktime.producer")
    /// The QuickTime metadata identifier for `com.apple.quicktime.publisher`.
    static let quickTimeMetadataPublisher = AVMetadataIdentifier("mdta/com.apple.quicktime.publisher")
    /// The QuickTime metadata identifier for `com.apple.quicktime.album`.
    static let quickTimeMetadataAlbum = AVMetadataIdentifier("mdta/com.apple.quicktime.album")
    /// The QuickTime metadata identifier for `com.apple.quicktime.artist`.
    static let quickTimeMetadataArtist = AVMetadataIdentifier("mdta/com.apple.quicktime.artist")
    /// The QuickTime metadata identifier for `com.apple.quicktime.artwork`.
    static let quickTimeMetadataArtwork = AVMetadataIdentifier("mdta/com.apple.quicktime.artwork")
    /// The QuickTime metadata identifier for `com.apple.quicktime.description`.
    static let quickTimeMetadataDescription = AVMetadataIdentifier("mdta/com.apple.quicktime.description")
    /// The QuickTime metadata identifier for `com.apple.quicktime.software`.
    static let quickTimeMetadataSoftware = AVMetadataIdentifier("mdta/com.apple.quicktime.software")
    /// The QuickTime metadata identifier for `com.apple.quicktime.year`.
    static let quickTimeMetadataYear = AVMetadataIdentifier("mdta/com.apple.quicktime.year")
    /// The QuickTime metadata identifier for `com.apple.quicktime.genre`.
    static let quickTimeMetadataGenre = AVMetadataIdentifier("mdta/com.apple.quicktime.genre")
    /// The QuickTime metadata identifier for `com.apple.quicktime.iXML`.
    static let quickTimeMetadataiXML = AVMetadataIdentifier("mdta/com.apple.quicktime.iXML")
    /// The QuickTime metadata identifier for `com.apple.quicktime.location.ISO6709`.
    static let quickTimeMetadataLocationISO6709 = AVMetadataIdentifier("mdta/com.apple.quicktime.location.ISO6709")
    /// The QuickTime metadata identifier for `com.apple.quicktime.make`.
    static let quickTimeMetadataMake = AVMetadataIdentifier("mdta/com.apple.quicktime.make")
    /// The QuickTime metadata identifier for `com.apple.quicktime.model`.
    static let quickTimeMetadataModel = AVMetadataIdentifier("mdta/com.apple.quicktime.model")
    /// The QuickTime metadata identifier for `com.apple.quicktime.arranger`.
    static let quickTimeMetadataArranger = AVMetadataIdentifier("mdta/com.apple.quicktime.arranger")
    /// The QuickTime metadata identifier for `com.apple.quicktime.encodedby`.
    static let quickTimeMetadataEncodedBy = AVMetadataIdentifier("mdta/com.apple.quicktime.encodedby")
    /// The QuickTime metadata identifier for `com.apple.quicktime.originalartist`.
    static let quickTimeMetadataOriginalArtist = AVMetadataIdentifier("mdta/com.apple.quicktime.originalartist")
    /// The QuickTime metadata identifier for `com.apple.quicktime.performer`.
    static let quickTimeMetadataPerformer = AVMetadataIdentifier("mdta/com.apple.quicktime.performer")
    /// The QuickTime metadata identifier for `com.apple.quicktime.composer`.
    static let quickTimeMetadataComposer = AVMetadataIdentifier("mdta/com.apple.quicktime.composer")
    /// The QuickTime metadata identifier for `com.apple.quicktime.credits`.
    static let quickTimeMetadataCredits = AVMetadataIdentifier("mdta/com.apple.quicktime.credits")
    /// The QuickTime metadata identifier for `com.apple.quicktime.phonogramrights`.
    static let quickTimeMetadataPhonogramRights = AVMetadataIdentifier("mdta/com.apple.quicktime.phonogramrights")
    /// The QuickTime metadata identifier for `com.apple.quicktime.camera.identifier`.
    static let quickTimeMetadataCameraIdentifier = AVMetadataIdentifier("mdta/com.apple.quicktime.camera.identifier")
    /// The QuickTime metadata identifier for `com.apple.quicktime.camera.framereadouttimeinmicroseconds`.
    static let quickTimeMetadataCameraFrameReadoutTime = AVMetadataIdentifier("mdta/com.apple.quicktime.camera.framereadouttimeinmicroseconds")
    /// The QuickTime metadata identifier for `com.apple.quicktime.title`.
    static let quickTimeMetadataTitle = AVMetadataIdentifier("mdta/com.apple.quicktime.title")
    /// The QuickTime metadata identifier for `com.apple.quicktime.collection.user`.
    static let quickTimeMetadataCollectionUser = AVMetadataIdentifier("mdta/com.apple.quicktime.collection.user")
    /// The QuickTime metadata identifier for `com.apple.quicktime.rating.user`.
    static let quickTimeMetadataRatingUser = AVMetadataIdentifier("mdta/com.apple.quicktime.rating.user")
    /// The QuickTime metadata identifier for `com.apple.quicktime.location.name`.
    static let quickTimeMetadataLocationName = AVMetadataIdentifier("mdta/com.apple.quicktime.location.name")
    /// The QuickTime metadata identifier for `com.apple.quicktime.location.body`.
    static let quickTimeMetadataLocationBody = AVMetadataIdentifier("mdta/com.apple.quicktime.location.body")
    /// The QuickTime metadata identifier for `com.apple.quicktime.location.note`.
    static let quickTimeMetadataLocationNote = AVMetadataIdentifier("mdta/com.apple.quicktime.location.note")
    /// The QuickTime metadata identifier for `com.apple.quicktime.location.role`.
    static let quickTimeMetadataLocationRole = AVMetadataIdentifier("mdta/com.apple.quicktime.location.role")
    /// The QuickTime metadata identifier for `com.apple.quicktime.location.date`.
    static let quickTimeMetadataLocationDate = AVMetadataIdentifier("mdta/com.apple.quicktime.location.date")
    /// The QuickTime metadata identifier for `com.apple.quicktime.direction.facing`.
    static let quickTimeMetadataDirectionFacing = AVMetadataIdentifier("mdta/com.apple.quicktime.direction.facing")
    /// The QuickTime metadata identifier for `com.apple.quicktime.direction.motion`.
    static let quickTimeMetadataDirectionMotion = AVMetadataIdentifier("mdta/com.apple.quicktime.direction.motion")
    /// The QuickTime metadata identifier for `com.apple.quicktime.content.identifier`.
    static let quickTimeMetadataContentIdentifier = AVMetadataIdentifier("mdta/com.apple.quicktime.content.identifier")
    /// The QuickTime metadata identifier for `com.apple.quicktime.accessibility.description`.
    static let quickTimeMetadataAccessibilityDescription = AVMetadataIdentifier("mdta/com.apple.quicktime.accessibility.description")
    /// The QuickTime metadata identifier for `com.apple.quicktime.is-montage`.
    static let quickTimeMetadataIsMontage = AVMetadataIdentifier("mdta/com.apple.quicktime.is-montage")
    /// The QuickTime metadata identifier for `com.apple.quicktime.auto-live-photo`.
    static let quickTimeMetadataAutoLivePhoto = AVMetadataIdentifier("mdta/com.apple.quicktime.auto-live-photo")
    /// The QuickTime metadata identifier for `com.apple.quicktime.live-photo.vitality-score`.
    static let quickTimeMetadataLivePhotoVitalityScore = AVMetadataIdentifier("mdta/com.apple.quicktime.live-photo.vitality-score")
    /// The QuickTime metadata identifier for `com.apple.quicktime.live-photo.vitality-scoring-version`.
    static let quickTimeMetadataLivePhotoVitalityScoringVersion = AVMetadataIdentifier("mdta/com.apple.quicktime.live-photo.vitality-scoring-version")
}

/// ISO user data identifiers.
public extension AVMetadataIdentifier {
    /// The ISO user data identifier for `cprt`.
    static let isoUserDataCopyright = AVMetadataIdentifier("uiso/cprt")
    /// The ISO user data identifier for `tagc`.
    static let isoUserDataTaggedCharacteristic = AVMetadataIdentifier("uiso/tagc")
    /// The ISO user data identifier for `date`.
    static let isoUserDataDate = AVMetadataIdentifier("uiso/date")
    /// The ISO user data identifier for `titl`.
    static let isoUserDataTitle = AVMetadataIdentifier("uiso/titl")
    /// The ISO user data identifier for `dscp`.
    static let isoUserDataDescription = AVMetadataIdentifier("uiso/dscp")
    /// The ISO user data identifier for `auth`.
    static let isoUserDataAuthor = AVMetadataIdentifier("uiso/auth")
    /// The ISO user data identifier for `perf`.
    static let isoUserDataPerformer = AVMetadataIdentifier("uiso/perf")
    /// The ISO user data identifier for `gnre`.
    static let isoUserDataGenre = AVMetadataIdentifier("uiso/gnre")
    /// The ISO user data identifier for `yrrc`.
    static let isoUserDataRecordingYear = AVMetadataIdentifier("uiso/yrrc")
    /// The ISO user data identifier for `loci`.
    static let isoUserDataLocation = AVMetadataIdentifier("uiso/loci")
    /// The ISO user data identifier for `albm`.
    static let isoUserDataAlbumTitle = AVMetadataIdentifier("uiso/albm")
    /// The ISO user data identifier for `rtng`.
    static let isoUserDataRating = AVMetadataIdentifier("uiso/rtng")
    /// The ISO user data identifier for `clsf`.
    static let isoUserDataClassification = AVMetadataIdentifier("uiso/clsf")
    /// The ISO user data identifier for `kywd`.
    static let isoUserDataKeywords = AVMetadataIdentifier("uiso/kywd")
    /// The ISO user data identifier for `adsc`.
    static let isoUserDataAccessibilityDescription = AVMetadataIdentifier("uiso/adsc")
}

/// ID3 identifiers.
public extension AVMetadataIdentifier {
    /// The ID3 identifier for `AENC`.
    static let id3MetadataAudioEncryption = AVMetadataIdentifier("id3/AENC")
    /// The ID3 identifier for `APIC`.
    static let id3MetadataAttachedPicture = AVMetadataIdentifier("id3/APIC")
    /// The ID3 identifier for `ASPI`.
    static let id3MetadataAudioSeekPointIndex = AVMetadataIdentifier("id3/ASPI")
    /// The ID3 identifier for `COMM`.
    static let id3MetadataComments = AVMetadataIdentifier("id3/COMM")
    /// The ID3 identifier for `COMR`.
    static let id3MetadataCommercial = AVMetadataIdentifier("id3/COMR")
    /// The ID3 identifier for `WCOM`.
    static let id3MetadataCommercialInformation = AVMetadataIdentifier("id3/WCOM")
    /// The ID3 identifier for `TSSE`.
    static let id3MetadataEncodedWith = AVMetadataIdentifier("id3/TSSE")
    /// The ID3 identifier for `ENCR`.
    static let id3MetadataEncryption = AVMetadataIdentifier("id3/ENCR")
    /// The ID3 identifier for `EQUA`.
    static let id3MetadataEqualization = AVMetadataIdentifier("id3/EQUA")
    /// The ID3 identifier for `EQU2`.
    static let id3MetadataEqualization2 = AVMetadataIdentifier("id3/EQU2")
    /// The ID3 identifier for `ETCO`.
    static let id3MetadataEventTimingCodes = AVMetadataIdentifier("id3/ETCO")
    /// The ID3 identifier for `GEOB`.
    static let id3MetadataGeneralEncapsulatedObject = AVMetadataIdentifier("id3/GEOB")
    /// The ID3 identifier for `GRID`.
    static let id3MetadataGroupIdentifier = AVMetadataIdentifier("id3/GRID")
    /// The ID3 identifier for `IPLS`.
    static let id3MetadataInvolvedPeopleList_v23 = AVMetadataIdentifier("id3/IPLS")
    /// The ID3 identifier for `LINK`.
    static let id3MetadataLink = AVMetadataIdentifier("id3/LINK")
    /// The ID3 identifier for `MCDI`.
    static let id3MetadataMusicCDIdentifier = AVMetadataIdentifier("id3/MCDI")
    /// The ID3 identifier for `MLLT`.
    static let id3MetadataMPEGLocationLookupTable = AVMetadataIdentifier("id3/MLLT")
    /// The ID3 identifier for `OWNE`.
    static let id3MetadataOwnership = AVMetadataIdentifier("id3/OWNE")
    /// The ID3 identifier for `PRIV`.
    static let id3MetadataPrivate = AVMetadataIdentifier("id3/PRIV")
    /// The ID3 identifier for `PCNT`.
    static let id3MetadataPlayCounter = AVMetadataIdentifier("id3/PCNT")
    /// The ID3 identifier for `POPM`.
    static let id3MetadataPopularimeter = AVMetadataIdentifier("id3/POPM")
    /// The ID3 identifier for `POSS`.
    static let id3MetadataPositionSynchronization = AVMetadataIdentifier("id3/POSS")
    /// The ID3 identifier for `RBUF`.
    static let id3MetadataRecommendedBufferSize = AVMetadataIdentifier("id3/RBUF")
    /// The ID3 identifier for `RVAD`.
    static let id3MetadataRelativeVolumeAdjustment = AVMetadataIdentifier("id3/RVAD")
    /// The ID3 identifier for `RVA2`.
    static let id3MetadataRelativeVolumeAdjustment2 = AVMetadataIdentifier("id3/RVA2")
    /// The ID3 identifier for `RVRB`.
    static let id3MetadataReverb = AVMetadataIdentifier("id3/RVRB")
    /// The ID3 identifier for `SEEK`.
    static let id3MetadataSeek = AVMetadataIdentifier("id3/SEEK")
    /// The ID3 identifier for `SIGN`.
    static let id3MetadataSignature = AVMetadataIdentifier("id3/SIGN")
    /// The ID3 identifier for `SYLT`.
    static let id3MetadataSynchronizedLyric = AVMetadataIdentifier("id3/SYLT")
    /// The ID3 identifier for `SYTC`.
    static let id3MetadataSynchronizedTempoCodes = AVMetadataIdentifier("id3/SYTC")
    /// The ID3 identifier for `TALB`.
    static let id3MetadataAlbumTitle = AVMetadataIdentifier("id3/TALB")
    /// The ID3 identifier for `TBPM`.
    static let id3MetadataBeatsPerMinute = AVMetadataIdentifier("id3/TBPM")
    /// The ID3 identifier for `TCOM`.
    static let id3MetadataComposer = AVMetadataIdentifier("id3/TCOM")
    /// The ID3 identifier for `TCON`.
    static let id3MetadataContentType = AVMetadataIdentifier("id3/TCON")
    /// The ID3 identifier for `TCOP`.
    static let id3MetadataCopyright = AVMetadataIdentifier("id3/TCOP")
    /// The ID3 identifier for `TDAT`.
    static let id3MetadataDate = AVMetadataIdentifier("id3/TDAT")
    /// The ID3 identifier for `TDEN`.
    static let id3MetadataEncodingTime = AVMetadataIdentifier("id3/TDEN")
    /// The ID3 identifier for `TDLY`.
    static let id3MetadataPlaylistDelay = AVMetadataIdentifier("id3/TDLY")
    /// The ID3 identifier for `TDOR`.
    static let id3MetadataOriginalReleaseTime = AVMetadataIdentifier("id3/TDOR")
    /// The ID3 identifier for `TDRC`.
    static let id3MetadataRecordingTime = AVMetadataIdentifier("id3/TDRC")
    /// The ID3 identifier for `TDRL`.
    static let id3MetadataReleaseTime = AVMetadataIdentifier("id3/TDRL")
    /// The ID3 identifier for `TDTG`.
    static let id3MetadataTaggingTime = AVMetadataIdentifier("id3/TDTG")
    /// The ID3 identifier for `TENC`.
    static let id3MetadataEncodedBy = AVMetadataIdentifier("id3/TENC")
    /// The ID3 identifier for `TEXT`.
    static let id3MetadataLyricist = AVMetadataIdentifier("id3/TEXT")
    /// The ID3 identifier for `TFLT`.
    static let id3MetadataFileType = AVMetadataIdentifier("id3/TFLT")
    /// The ID3 identifier for `TIME`.
    static let id3MetadataTime = AVMetadataIdentifier("id3/TIME")
    /// The ID3 identifier for `TIPL`.
    static let id3MetadataInvolvedPeopleList_v24 = AVMetadataIdentifier("id3/TIPL")
    /// The ID3 identifier for `TIT1`.
    static let id3MetadataContentGroupDescription = AVMetadataIdentifier("id3/TIT1")
    /// The ID3 identifier for `TIT2`.
    static let id3MetadataTitleDescription = AVMetadataIdentifier("id3/TIT2")
    /// The ID3 identifier for `TIT3`.
    static let id3MetadataSubTitle = AVMetadataIdentifier("id3/TIT3")
    /// The ID3 identifier for `TKEY`.
    static let id3MetadataInitialKey = AVMetadataIdentifier("id3/TKEY")
    /// The ID3 identifier for `TLAN`.
    static let id3MetadataLanguage = AVMetadataIdentifier("id3/TLAN")
    /// The ID3 identifier for `TLEN`.
    static let id3MetadataLength = AVMetadataIdentifier("id3/TLEN")
    /// The ID3 identifier for `TMCL`.
    static let id3MetadataMusicianCreditsList = AVMetadataIdentifier("id3/TMCL")
    /// The ID3 identifier for `TMED`.
    static let id3MetadataMediaType = AVMetadataIdentifier("id3/TMED")
    /// The ID3 identifier for `TMOO`.
    static let id3MetadataMood = AVMetadataIdentifier("id3/TMOO")
    /// The ID3 identifier for `TOAL`.
    static let id3MetadataOriginalAlbumTitle = AVMetadataIdentifier("id3/TOAL")
    /// The ID3 identifier for `TOFN`.
    static let id3MetadataOriginalFilename = AVMetadataIdentifier("id3/TOFN")
    /// The ID3 identifier for `TOLY`.
    static let id3MetadataOriginalLyricist = AVMetadataIdentifier("id3/TOLY")
    /// The ID3 identifier for `TOPE`.
    static let id3MetadataOriginalArtist = AVMetadataIdentifier("id3/TOPE")
    /// The ID3 identifier for `TORY`.
    static let id3MetadataOriginalReleaseYear = AVMetadataIdentifier("id3/TORY")
    /// The ID3 identifier for `TOWN`.
    static let id3MetadataFileOwner = AVMetadataIdentifier("id3/TOWN")
    /// The ID3 identifier for `TPE1`.
    static let id3MetadataLeadPerformer = AVMetadataIdentifier("id3/TPE1")
    /// The ID3 identifier for `TPE2`.
    static let id3MetadataBand = AVMetadataIdentifier("id3/TPE2")
    /// The ID3 identifier for `TPE3`.
    static let id3MetadataConductor = AVMetadataIdentifier("id3/TPE3")
    /// The ID3 identifier for `TPE4`.
    static let id3MetadataModifiedBy = AVMetadataIdentifier("id3/TPE4")
    /// The ID3 identifier for `TPOS`.
    static let id3MetadataPartOfASet = AVMetadataIdentifier("id3/TPOS")
    /// The ID3 identifier for `TPRO`.
    static let id3MetadataProducedNotice = AVMetadataIdentifier("id3/TPRO")
    /// The ID3 identifier for `TPUB`.
    static let id3MetadataPublisher = AVMetadataIdentifier("id3/TPUB")
    /// The ID3 identifier for `TRCK`.
    static let id3MetadataTrackNumber = AVMetadataIdentifier("id3/TRCK")
    /// The ID3 identifier for `TRDA`.
    static let id3MetadataRecordingDates = AVMetadataIdentifier("id3/TRDA")
    /// The ID3 identifier for `TRSN`.
    static let id3MetadataInternetRadioStationName = AVMetadataIdentifier("id3/TRSN")
    /// The ID3 identifier for `TRSO`.
    static let id3MetadataInternetRadioStationOwner = AVMetadataIdentifier("id3/TRSO")
    /// The ID3 identifier for `TSIZ`.
    static let id3MetadataSize = AVMetadataIdentifier("id3/TSIZ")
    /// The ID3 identifier for `TSOA`.
    static let id3MetadataAlbumSortOrder = AVMetadataIdentifier("id3/TSOA")
    /// The ID3 identifier for `TSOP`.
    static let id3MetadataPerformerSortOrder = AVMetadataIdentifier("id3/TSOP")
    /// The ID3 identifier for `TSOT`.
    static let id3MetadataTitleSortOrder = AVMetadataIdentifier("id3/TSOT")
    /// The ID3 identifier for `TSRC`.
    static let id3MetadataInternationalStandardRecordingCode = AVMetadataIdentifier("id3/TSRC")
    /// The ID3 identifier for `TSST`.
    static let id3MetadataSetSubtitle = AVMetadataIdentifier("id3/TSST")
    /// The ID3 identifier for `TYER`.
    static let id3MetadataYear = AVMetadataIdentifier("id3/TYER")
    /// The ID3 identifier for `TXXX`.
    static let id3MetadataUserText = AVMetadataIdentifier("id3/TXXX")
    /// The ID3 identifier for `UFID`.
    static let id3MetadataUniqueFileIdentifier = AVMetadataIdentifier("id3/UFID")
    /// The ID3 identifier for `USER`.
    static let id3MetadataTermsOfUse = AVMetadataIdentifier("id3/USER")
    /// The ID3 identifier for `USLT`.
    static let id3MetadataUnsynchronizedLyric = AVMetadataIdentifier("id3/USLT")
    /// The ID3 identifier for `WCOP`.
    static let id3MetadataCopyrightInformation = AVMetadataIdentifier("id3/WCOP")
    /// The ID3 identifier for `WOAF`.
    static let id3MetadataOfficialAudioFileWebpage = AVMetadataIdentifier("id3/WOAF")
    /// The ID3 identifier for `WOAR`.
    static let id3MetadataOfficialArtistWebpage = AVMetadataIdentifier("id3/WOAR")
    /// The ID3 identifier for `WOAS`.
    static let id3MetadataOfficialAudioSourceWebpage = AVMetadataIdentifier("id3/WOAS")
    /// The ID3 identifier for `WORS`.
    static let id3MetadataOfficialInternetRadioStationHomepage = AVMetadataIdentifier("id3/WORS")
    /// The ID3 identifier for `WPAY`.
    static let id3MetadataPayment = AVMetadataIdentifier("id3/WPAY")
    /// The ID3 identifier for `WPUB`.
    static let id3MetadataOfficialPublisherWebpage = AVMetadataIdentifier("id3/WPUB")
    /// The ID3 identifier for `WXXX`.
    static let id3MetadataUserURL = AVMetadataIdentifier("id3/WXXX")
}
