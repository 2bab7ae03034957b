// Apple's AVMetadataKey constants (AVMetadataFormat.h), by key space.
import Foundation

/// Common keys: the cross-format vocabulary of `commonMetadata`.
public extension AVMetadataKey {
    /// The common key `title`.
    static let commonKeyTitle = AVMetadataKey("title")
    /// The common key `creator`.
    static let commonKeyCreator = AVMetadataKey("creator")
    /// The common key `subject`.
    static let commonKeySubject = AVMetadataKey("subject")
    /// The common key `description`.
    static let commonKeyDescription = AVMetadataKey("description")
    /// The common key `publisher`.
    static let commonKeyPublisher = AVMetadataKey("publisher")
    /// The common key `contributor`.
    static let commonKeyContributor = AVMetadataKey("contributor")
    /// The common key `creationDate`.
    static let commonKeyCreationDate = AVMetadataKey("creationDate")
    /// The common key `lastModifiedDate`.
    static let commonKeyLastModifiedDate = AVMetadataKey("lastModifiedDate")
    /// The common key `type`.
    static let commonKeyType = AVMetadataKey("type")
    /// The common key `format`.
    static let commonKeyFormat = AVMetadataKey("format")
    /// The common key `identifier`.
    static let commonKeyIdentifier = AVMetadataKey("identifier")
    /// The common key `source`.
    static let commonKeySource = AVMetadataKey("source")
    /// The common key `language`.
    static let commonKeyLanguage = AVMetadataKey("language")
    /// The common key `relation`.
    static let commonKeyRelation = AVMetadataKey("relation")
    /// The common key `location`.
    static let commonKeyLocation = AVMetadataKey("location")
    /// The common key `copyrights`.
    static let commonKeyCopyrights = AVMetadataKey("copyrights")
    /// The common key `albumName`.
    static let commonKeyAlbumName = AVMetadataKey("albumName")
    /// The common key `author`.
    static let commonKeyAuthor = AVMetadataKey("author")
    /// The common key `artist`.
    static let commonKeyArtist = AVMetadataKey("artist")
    /// The common key `artwork`.
    static let commonKeyArtwork = AVMetadataKey("artwork")
    /// The common key `make`.
    static let commonKeyMake = AVMetadataKey("make")
    /// The common key `model`.
    static let commonKeyModel = AVMetadataKey("model")
    /// The common key `software`.
    static let commonKeySoftware = AVMetadataKey("software")
    /// The common key `accessibilityDescription`.
    static let commonKeyAccessibilityDescription = AVMetadataKey("accessibilityDescription")
}

/// iTunes (`ilst`) keys.
public extension AVMetadataKey {
    /// The iTunes key `©alb`.
    static let iTunesMetadataKeyAlbum = AVMetadataKey("©alb")
    /// The iTunes key `©ART`.
    static let iTunesMetadataKeyArtist = AVMetadataKey("©ART")
    /// The iTunes key `©cmt`.
    static let iTunesMetadataKeyUserComment = AVMetadataKey("©cmt")
    /// The iTunes key `covr`.
    static let iTunesMetadataKeyCoverArt = AVMetadataKey("covr")
    /// The iTunes key `cprt`.
    static let iTunesMetadataKeyCopyright = AVMetadataKey("cprt")
    /// The iTunes key `©day`.
    static let iTunesMetadataKeyReleaseDate = AVMetadataKey("©day")
    /// The iTunes key `©enc`.
    static let iTunesMetadataKeyEncodedBy = AVMetadataKey("©enc")
    /// The iTunes key `gnre`.
    static let iTunesMetadataKeyPredefinedGenre = AVMetadataKey("gnre")
    /// The iTunes key `©gen`.
    static let iTunesMetadataKeyUserGenre = AVMetadataKey("©gen")
    /// The iTunes key `©nam`.
    static let iTunesMetadataKeySongName = AVMetadataKey("©nam")
    /// The iTunes key `©st3`.
    static let iTunesMetadataKeyTrackSubTitle = AVMetadataKey("©st3")
    /// The iTunes key `©too`.
    static let iTunesMetadataKeyEncodingTool = AVMetadataKey("©too")
    /// The iTunes key `©wrt`.
    static let iTunesMetadataKeyComposer = AVMetadataKey("©wrt")
    /// The iTunes key `aART`.
    static let iTunesMetadataKeyAlbumArtist = AVMetadataKey("aART")
    /// The iTunes key `akID`.
    static let iTunesMetadataKeyAccountKind = AVMetadataKey("akID")
    /// The iTunes key `apID`.
    static let iTunesMetadataKeyAppleID = AVMetadataKey("apID")
    /// The iTunes key `atID`.
    static let iTunesMetadataKeyArtistID = AVMetadataKey("atID")
    /// The iTunes key `cnID`.
    static let iTunesMetadataKeySongID = AVMetadataKey("cnID")
    /// The iTunes key `cpil`.
    static let iTunesMetadataKeyDiscCompilation = AVMetadataKey("cpil")
    /// The iTunes key `disk`.
    static let iTunesMetadataKeyDiscNumber = AVMetadataKey("disk")
    /// The iTunes key `geID`.
    static let iTunesMetadataKeyGenreID = AVMetadataKey("geID")
    /// The iTunes key `©grp`.
    static let iTunesMetadataKeyGrouping = AVMetadataKey("©grp")
    /// The iTunes key `plID`.
    static let iTunesMetadataKeyPlaylistID = AVMetadataKey("plID")
    /// The iTunes key `rtng`.
    static let iTunesMetadataKeyContentRating = AVMetadataKey("rtng")
    /// The iTunes key `tmpo`.
    static let iTunesMetadataKeyBeatsPerMin = AVMetadataKey("tmpo")
    /// The iTunes key `trkn`.
    static let iTunesMetadataKeyTrackNumber = AVMetadataKey("trkn")
    /// The iTunes key `©aut`.
    static let iTunesMetadataKeyAuthor = AVMetadataKey("©aut")
    /// The iTunes key `©con`.
    static let iTunesMetadataKeyConductor = AVMetadataKey("©con")
    /// The iTunes key `©des`.
    static let iTunesMetadataKeyDescription = AVMetadataKey("©des")
    /// The iTunes key `©dir`.
    static let iTunesMetadataKeyDirector = AVMetadataKey("©dir")
    /// The iTunes key `©equ`.
    static let iTunesMetadataKeyEQ = AVMetadataKey("©equ")
    /// The iTunes key `©lyr`.
    static let iTunesMetadataKeyLyrics = AVMetadataKey("©lyr")
    /// The iTunes key `©ope`.
    static let iTunesMetadataKeyOriginalArtist = AVMetadataKey("©ope")
    /// The iTunes key `©prf`.
    static let iTunesMetadataKeyPerformer = AVMetadataKey("©prf")
    /// The iTunes key `©prd`.
    static let iTunesMetadataKeyProducer = AVMetadataKey("©prd")
    /// The iTunes key `©pub`.
    static let iTunesMetadataKeyPublisher = AVMetadataKey("©pub")
    /// The iTunes key `©mak`.
    static let iTunesMetadataKeyRecordCompany = AVMetadataKey("©mak")
    /// The iTunes key `©sol`.
    static let iTunesMetadataKeySoloist = AVMetadataKey("©sol")
    /// The iTunes key `©thx`.
    static let iTunesMetadataKeyThanks = AVMetadataKey("©thx")
    /// The iTunes key `©ard`.
    static let iTunesMetadataKeyArtDirector = AVMetadataKey("©ard")
    /// The iTunes key `©arg`.
    static let iTunesMetadataKeyArranger = AVMetadataKey("©arg")
    /// The iTunes key `©phg`.
    static let iTunesMetadataKeyPhonogram = AVMetadataKey("©phg")
    /// The iTunes key `©sne`.
    static let iTunesMetadataKeySoundEngineer = AVMetadataKey("©sne")
    /// The iTunes key `©lnt`.
    static let iTunesMetadataKeyLinerNotes = AVMetadataKey("©lnt")
    /// The iTunes key `©xpd`.
    static let iTunesMetadataKeyExecProducer = AVMetadataKey("©xpd")
}

/// QuickTime user data (`udta`) keys.
public extension AVMetadataKey {
    /// The QuickTime user data key `©alb`.
    static let quickTimeUserDataKeyAlbum = AVMetadataKey("©alb")
    /// The QuickTime user data key `©arg`.
    static let quickTimeUserDataKeyArranger = AVMetadataKey("©arg")
    /// The QuickTime user data key `©ART`.
    static let quickTimeUserDataKeyArtist = AVMetadataKey("©ART")
    /// The QuickTime user data key `©aut`.
    static let quickTimeUserDataKeyAuthor = AVMetadataKey("©aut")
    /// The QuickTime user data key `chpl`.
    static let quickTimeUserDataKeyChapter = AVMetadataKey("chpl")
    /// The QuickTime user data key `©cmt`.
    static let quickTimeUserDataKeyComment = AVMetadataKey("©cmt")
    /// The QuickTime user data key `©com`.
    static let quickTimeUserDataKeyComposer = AVMetadataKey("©com")
    /// The QuickTime user data key `©cpy`.
    static let quickTimeUserDataKeyCopyright = AVMetadataKey("©cpy")
    /// The QuickTime user data key `©day`.
    static let quickTimeUserDataKeyCreationDate = AVMetadataKey("©day")
    /// The QuickTime user data key `©des`.
    static let quickTimeUserDataKeyDescription = AVMetadataKey("©des")
    /// The QuickTime user data key `©dir`.
    static let quickTimeUserDataKeyDirector = AVMetadataKey("©dir")
    /// The QuickTime user data key `©dis`.
    static let quickTimeUserDataKeyDisclaimer = AVMetadataKey("©dis")
    /// The QuickTime user data key `©enc`.
    static let quickTimeUserDataKeyEncodedBy = AVMetadataKey("©enc")
    /// The QuickTime user data key `©nam`.
    static let quickTimeUserDataKeyFullName = AVMetadataKey("©nam")
    /// The QuickTime user data key `©gen`.
    static let quickTimeUserDataKeyGenre = AVMetadataKey("©gen")
    /// The QuickTime user data key `©hst`.
    static let quickTimeUserDataKeyHostComputer = AVMetadataKey("©hst")
    /// The QuickTime user data key `©inf`.
    static let quickTimeUserDataKeyInformation = AVMetadataKey("©inf")
    /// The QuickTime user data key `©key`.
    static let quickTimeUserDataKeyKeywords = AVMetadataKey("©key")
    /// The QuickTime user data key `©mak`.
    static let quickTimeUserDataKeyMake = AVMetadataKey("©mak")
    /// The QuickTime user data key `©mod`.
    static let quickTimeUserDataKeyModel = AVMetadataKey("©mod")
    /// The QuickTime user data key `©ope`.
    static let quickTimeUserDataKeyOriginalArtist = AVMetadataKey("©ope")
    /// The QuickTime user data key `©fmt`.
    static let quickTimeUserDataKeyOriginalFormat = AVMetadataKey("©fmt")
    /// The QuickTime user data key `©src`.
    static let quickTimeUserDataKeyOriginalSource = AVMetadataKey("©src")
    /// The QuickTime user data key `©prf`.
    static let quickTimeUserDataKeyPerformers = AVMetadataKey("©prf")
    /// The QuickTime user data key `©prd`.
    static let quickTimeUserDataKeyProducer = AVMetadataKey("©prd")
    /// The QuickTime user data key `©pub`.
    static let quickTimeUserDataKeyPublisher = AVMetadataKey("©pub")
    /// The QuickTime user data key `©PRD`.
    static let quickTimeUserDataKeyProduct = AVMetadataKey("©PRD")
    /// The QuickTime user data key `©swr`.
    static let quickTimeUserDataKeySoftware = AVMetadataKey("©swr")
    /// The QuickTime user data key `©req`.
    static let quickTimeUserDataKeySpecialPlaybackRequirements = AVMetadataKey("©req")
    /// The QuickTime user data key `©trk`.
    static let quickTimeUserDataKeyTrack = AVMetadataKey("©trk")
    /// The QuickTime user data key `©wrn`.
    static let quickTimeUserDataKeyWarning = AVMetadataKey("©wrn")
    /// The QuickTime user data key `©wrt`.
    static let quickTimeUserDataKeyWriter = AVMetadataKey("©wrt")
    /// The QuickTime user data key `©url`.
    static let quickTimeUserDataKeyURLLink = AVMetadataKey("©url")
    /// The QuickTime user data key `©xyz`.
    static let quickTimeUserDataKeyLocationISO6709 = AVMetadataKey("©xyz")
    /// The QuickTime user data key `tnam`.
    static let quickTimeUserDataKeyTrackName = AVMetadataKey("tnam")
    /// The QuickTime user data key `©phg`.
    static let quickTimeUserDataKeyPhonogramRights = AVMetadataKey("©phg")
    /// The QuickTime user data key `tagc`.
    static let quickTimeUserDataKeyTaggedCharacteristic = AVMetadataKey("tagc")
    /// The QuickTime user data key `adsc`.
    static let quickTimeUserDataKeyAccessibilityDescription = AVMetadataKey("adsc")
}

/// QuickTime metadata (`mdta`) keys.
public extension AVMetadataKey {
    /// The QuickTime metadata key `com.apple.quicktime.author`.
    static let quickTimeMetadataKeyAuthor = AVMetadataKey("com.apple.quicktime.author")
    /// The QuickTime metadata key `com.apple.quicktime.comment`.
    static let quickTimeMetadataKeyComment = AVMetadataKey("com.apple.quicktime.comment")
    /// The QuickTime metadata key `com.apple.quicktime.copyright`.
    static let quickTimeMetadataKeyCopyright = AVMetadataKey("com.apple.quicktime.copyright")
    /// The QuickTime metadata key `com.apple.quicktime.creationdate`.
    static let quickTimeMetadataKeyCreationDate = AVMetadataKey("com.apple.quicktime.creationdate")
    /// The QuickTime metadata key `com.apple.quicktime.director`.
    static let quickTimeMetadataKeyDirector = AVMetadataKey("com.apple.quicktime.director")
    /// The QuickTime metadata key `com.apple.quicktime.displayname`.
    static let quickTimeMetadataKeyDisplayName = AVMetadataKey("com.apple.quicktime.displayname")
    /// The QuickTime metadata key `com.apple.quicktime.information`.
    static let quickTimeMetadataKeyInformation = AVMetadataKey("com.apple.quicktime.information")
    /// The QuickTime metadata key `com.apple.quicktime.keywords`.
    static let quickTimeMetadataKeyKeywords = AVMetadataKey("com.apple.quicktime.keywords")
    /// The QuickTime metadata key `com.apple.quicktime.producer`.
    static let quickTimeMetadataKeyProducer = AVMetadataKey("com.apple.quicktime.producer")
    /// The QuickTime metadata key `com.apple.quicktime.publisher`.
    static let quickTimeMetadataKeyPublisher = AVMetadataKey("com.apple.quicktime.publisher")
    /// The QuickTime metadata key `com.apple.quicktime.album`.
    static let quickTimeMetadataKeyAlbum = AVMetadataKey("com.apple.quicktime.album")
    /// The QuickTime metadata key `com.apple.quicktime.artist`.
    static let quickTimeMetadataKeyArtist = AVMetadataKey("com.apple.quicktime.artist")
    /// The QuickTime metadata key `com.apple.quicktime.artwork`.
    static let quickTimeMetadataKeyArtwork = AVMetadataKey("com.apple.quicktime.artwork")
    /// The QuickTime metadata key `com.apple.quicktime.description`.
    static let quickTimeMetadataKeyDescription = AVMetadataKey("com.apple.quicktime.description")
    /// The QuickTime metadata key `com.apple.quicktime.software`.
    static let quickTimeMetadataKeySoftware = AVMetadataKey("com.apple.quicktime.software")
    /// The QuickTime metadata key `com.apple.quicktime.year`.
    static let quickTimeMetadataKeyYear = AVMetadataKey("com.apple.quicktime.year")
    /// The QuickTime metadata key `com.apple.quicktime.genre`.
    static let quickTimeMetadataKeyGenre = AVMetadataKey("com.apple.quicktime.genre")
    /// The QuickTime metadata key `com.apple.quicktime.iXML`.
    static let quickTimeMetadataKeyiXML = AVMetadataKey("com.apple.quicktime.iXML")
    /// The QuickTime metadata key `com.apple.quicktime.location.ISO6709`.
    static let quickTimeMetadataKeyLocationISO6709 = AVMetadataKey("com.apple.quicktime.location.ISO6709")
    /// The QuickTime metadata key `com.apple.quicktime.make`.
    static let quickTimeMetadataKeyMake = AVMetadataKey("com.apple.quicktime.make")
    /// The QuickTime metadata key `com.apple.quicktime.model`.
    static let quickTimeMetadataKeyModel = AVMetadataKey("com.apple.quicktime.model")
    /// The QuickTime metadata key `com.apple.quicktime.arranger`.
    static let quickTimeMetadataKeyArranger = AVMetadataKey("com.apple.quicktime.arranger")
    /// The QuickTime metadata key `com.apple.quicktime.encodedby`.
    static let quickTimeMetadataKeyEncodedBy = AVMetadataKey("com.apple.quicktime.encodedby")
    /// The QuickTime metadata key `com.apple.quicktime.originalartist`.
    static let quickTimeMetadataKeyOriginalArtist = AVMetadataKey("com.apple.quicktime.originalartist")
    /// The QuickTime metadata key `com.apple.quicktime.performer`.
    static let quickTimeMetadataKeyPerformer = AVMetadataKey("com.apple.quicktime.performer")
    /// The QuickTime metadata key `com.apple.quicktime.composer`.
    static let quickTimeMetadataKeyComposer = AVMetadataKey("com.apple.quicktime.composer")
    /// The QuickTime metadata key `com.apple.quicktime.credits`.
    static let quickTimeMetadataKeyCredits = AVMetadataKey("com.apple.quicktime.credits")
    /// The QuickTime metadata key `com.apple.quicktime.phonogramrights`.
    static let quickTimeMetadataKeyPhonogramRights = AVMetadataKey("com.apple.quicktime.phonogramrights")
    /// The QuickTime metadata key `com.apple.quicktime.camera.identifier`.
    static let quickTimeMetadataKeyCameraIdentifier = AVMetadataKey("com.apple.quicktime.camera.identifier")
    /// The QuickTime metadata key `com.apple.quicktime.camera.framereadouttimeinmicroseconds`.
    static let quickTimeMetadataKeyCameraFrameReadoutTime = AVMetadataKey("com.apple.quicktime.camera.framereadouttimeinmicroseconds")
    /// The QuickTime metadata key `com.apple.quicktime.title`.
    static let quickTimeMetadataKeyTitle = AVMetadataKey("com.apple.quicktime.title")
    /// The QuickTime metadata key `com.apple.quicktime.collection.user`.
    static let quickTimeMetadataKeyCollectionUser = AVMetadataKey("com.apple.quicktime.collection.user")
    /// The QuickTime metadata key `com.apple.quicktime.rating.user`.
    static let quickTimeMetadataKeyRatingUser = AVMetadataKey("com.apple.quicktime.rating.user")
    /// The QuickTime metadata key `com.apple.quicktime.location.name`.
    static let quickTimeMetadataKeyLocationName = AVMetadataKey("com.apple.quicktime.location.name")
    /// The QuickTime metadata key `com.apple.quicktime.location.body`.
    static let quickTimeMetadataKeyLocationBody = AVMetadataKey("com.apple.quicktime.location.body")
    /// The QuickTime metadata key `com.apple.quicktime.location.note`.
    static let quickTimeMetadataKeyLocationNote = AVMetadataKey("com.apple.quicktime.location.note")
    /// The QuickTime metadata key `com.apple.quicktime.location.role`.
    static let quickTimeMetadataKeyLocationRole = AVMetadataKey("com.apple.quicktime.location.role")
    /// The QuickTime metadata key `com.apple.quicktime.location.date`.
    static let quickTimeMetadataKeyLocationDate = AVMetadataKey("com.apple.quicktime.location.date")
    /// The QuickTime metadata key `com.apple.quicktime.direction.facing`.
    static let quickTimeMetadataKeyDirectionFacing = AVMetadataKey("com.apple.quicktime.direction.facing")
    /// The QuickTime metadata key `com.apple.quicktime.direction.motion`.
    static let quickTimeMetadataKeyDirectionMotion = AVMetadataKey("com.apple.quicktime.direction.motion")
    /// The QuickTime metadata key `com.apple.quicktime.content.identifier`.
    static let quickTimeMetadataKeyContentIdentifier = AVMetadataKey("com.apple.quicktime.content.identifier")
    /// The QuickTime metadata key `com.apple.quicktime.accessibility.description`.
    static let quickTimeMetadataKeyAccessibilityDescription = AVMetadataKey("com.apple.quicktime.accessibility.description")
    /// The QuickTime metadata key `com.apple.quicktime.is-montage`.
    static let quickTimeMetadataKeyIsMontage = AVMetadataKey("com.apple.quicktime.is-montage")
    /// The QuickTime metadata key `com.apple.quicktime.auto-live-photo`.
    static let quickTimeMetadataKeyAutoLivePhoto = AVMetadataKey("com.apple.quicktime.auto-live-photo")
    /// The QuickTime metadata key `com.apple.quicktime.live-photo.vitality-score`.
    static let quickTimeMetadataKeyLivePhotoVitalityScore = AVMetadataKey("com.apple.quicktime.live-photo.vitality-score")
    /// The QuickTime metadata key `com.apple.quicktime.live-photo.vitality-scoring-version`.
    static let quickTimeMetadataKeyLivePhotoVitalityScoringVersion = AVMetadataKey("com.apple.quicktime.live-photo.vitality-scoring-version")
}

/// ISO user data keys.
public extension AVMetadataKey {
    /// The ISO user data key `cprt`.
    static let isoUserDataKeyCopyright = AVMetadataKey("cprt")
    /// The ISO user data key `tagc`.
    static let isoUserDataKeyTaggedCharacteristic = AVMetadataKey("tagc")
    /// The ISO user data key `date`.
    static let isoUserDataKeyDate = AVMetadataKey("date")
    /// The ISO user data key `titl`.
    static let isoUserDataKeyTitle = AVMetadataKey("titl")
    /// The ISO user data key `dscp`.
    static let isoUserDataKeyDescription = AVMetadataKey("dscp")
    /// The ISO user data key `auth`.
    static let isoUserDataKeyAuthor = AVMetadataKey("auth")
    /// The ISO user data key `perf`.
    static let isoUserDataKeyPerformer = AVMetadataKey("perf")
    /// The ISO user data key `gnre`.
    static let isoUserDataKeyGenre = AVMetadataKey("gnre")
    /// The ISO user data key `yrrc`.
    static let isoUserDataKeyRecordingYear = AVMetadataKey("yrrc")
    /// The ISO user data key `loci`.
    static let isoUserDataKeyLocation = AVMetadataKey("loci")
    /// The ISO user data key `albm`.
    static let isoUserDataKeyAlbumTitle = AVMetadataKey("albm")
    /// The ISO user data key `rtng`.
    static let isoUserDataKeyRating = AVMetadataKey("rtng")
    /// The ISO user data key `clsf`.
    static let isoUserDataKeyClassification = AVMetadataKey("clsf")
    /// The ISO user data key `kywd`.
    static let isoUserDataKeyKeywords = AVMetadataKey("kywd")
    /// The ISO user data key `adsc`.
    static let isoUserDataKeyAccessibilityDescription = AVMetadataKey("adsc")
}

/// ID3 (v2.3/v2.4 frame ID) keys.
public extension AVMetadataKey {
    /// The ID3 frame key `AENC`.
    static let id3MetadataKeyAudioEncryption = AVMetadataKey("AENC")
    /// The ID3 frame key `APIC`.
    static let id3MetadataKeyAttachedPicture = AVMetadataKey("APIC")
    /// The ID3 frame key `ASPI`.
    static let id3MetadataKeyAudioSeekPointIndex = AVMetadataKey("ASPI")
    /// The ID3 frame key `COMM`.
    static let id3MetadataKeyComments = AVMetadataKey("COMM")
    /// The ID3 frame key `COMR`.
    static let id3MetadataKeyCommercial = AVMetadataKey("COMR")
    /// The ID3 frame key `WCOM`.
    static let id3MetadataKeyCommercialInformation = AVMetadataKey("WCOM")
    /// The ID3 frame key `TSSE`.
    static let id3MetadataKeyEncodedWith = AVMetadataKey("TSSE")
    /// The ID3 frame key `ENCR`.
    static let id3MetadataKeyEncryption = AVMetadataKey("ENCR")
    /// The ID3 frame key `EQUA`.
    static let id3MetadataKeyEqualization = AVMetadataKey("EQUA")
    /// The ID3 frame key `EQU2`.
    static let id3MetadataKeyEqualization2 = AVMetadataKey("EQU2")
    /// The ID3 frame key `ETCO`.
    static let id3MetadataKeyEventTimingCodes = AVMetadataKey("ETCO")
    /// The ID3 frame key `GEOB`.
    static let id3MetadataKeyGeneralEncapsulatedObject = AVMetadataKey("GEOB")
    /// The ID3 frame key `GRID`.
    static let id3MetadataKeyGroupIdentifier = AVMetadataKey("GRID")
    /// The ID3 frame key `IPLS`.
    static let id3MetadataKeyInvolvedPeopleList_v23 = AVMetadataKey("IPLS")
    /// The ID3 frame key `LINK`.
    static let id3MetadataKeyLink = AVMetadataKey("LINK")
    /// The ID3 frame key `MCDI`.
    static let id3MetadataKeyMusicCDIdentifier = AVMetadataKey("MCDI")
    /// The ID3 frame key `MLLT`.
    static let id3MetadataKeyMPEGLocationLookupTable = AVMetadataKey("MLLT")
    /// The ID3 frame key `OWNE`.
    static let id3MetadataKeyOwnership = AVMetadataKey("OWNE")
    /// The ID3 frame key `PRIV`.
    static let id3MetadataKeyPrivate = AVMetadataKey("PRIV")
    /// The ID3 frame key `PCNT`.
    static let id3MetadataKeyPlayCounter = AVMetadataKey("PCNT")
    /// The ID3 frame key `POPM`.
    static let id3MetadataKeyPopularimeter = AVMetadataKey("POPM")
    /// The ID3 frame key `POSS`.
    static let id3MetadataKeyPositionSynchronization = AVMetadataKey("POSS")
    /// The ID3 frame key `RBUF`.
    static let id3MetadataKeyRecommendedBufferSize = AVMetadataKey("RBUF")
    /// The ID3 frame key `RVAD`.
    static let id3MetadataKeyRelativeVolumeAdjustment = AVMetadataKey("RVAD")
    /// The ID3 frame key `RVA2`.
    static let id3MetadataKeyRelativeVolumeAdjustment2 = AVMetadataKey("RVA2")
    /// The ID3 frame key `RVRB`.
    static let id3MetadataKeyReverb = AVMetadataKey("RVRB")
    /// The ID3 frame key `SEEK`.
    static let id3MetadataKeySeek = AVMetadataKey("SEEK")
    /// The ID3 frame key `SIGN`.
    static let id3MetadataKeySignature = AVMetadataKey("SIGN")
    /// The ID3 frame key `SYLT`.
    static let id3MetadataKeySynchronizedLyric = AVMetadataKey("SYLT")
    /// The ID3 frame key `SYTC`.
    static let id3MetadataKeySynchronizedTempoCodes = AVMetadataKey("SYTC")
    /// The ID3 frame key `TALB`.
    static let id3MetadataKeyAlbumTitle = AVMetadataKey("TALB")
    /// The ID3 frame key `TBPM`.
    static let id3MetadataKeyBeatsPerMinute = AVMetadataKey("TBPM")
    /// The ID3 frame key `TCOM`.
    static let id3MetadataKeyComposer = AVMetadataKey("TCOM")
    /// The ID3 frame key `TCON`.
    static let id3MetadataKeyContentType = AVMetadataKey("TCON")
    /// The ID3 frame key `TCOP`.
    static let id3MetadataKeyCopyright = AVMetadataKey("TCOP")
    /// The ID3 frame key `TDAT`.
    static let id3MetadataKeyDate = AVMetadataKey("TDAT")
    /// The ID3 frame key `TDEN`.
    static let id3MetadataKeyEncodingTime = AVMetadataKey("TDEN")
    /// The ID3 frame key `TDLY`.
    static let id3MetadataKeyPlaylistDelay = AVMetadataKey("TDLY")
    /// The ID3 frame key `TDOR`.
    static let id3MetadataKeyOriginalReleaseTime = AVMetadataKey("TDOR")
    /// The ID3 frame key `TDRC`.
    static let id3MetadataKeyRecordingTime = AVMetadataKey("TDRC")
    /// The ID3 frame key `TDRL`.
    static let id3MetadataKeyReleaseTime = AVMetadataKey("TDRL")
    /// The ID3 frame key `TDTG`.
    static let id3MetadataKeyTaggingTime = AVMetadataKey("TDTG")
    /// The ID3 frame key `TENC`.
    static let id3MetadataKeyEncodedBy = AVMetadataKey("TENC")
    /// The ID3 frame key `TEXT`.
    static let id3MetadataKeyLyricist = AVMetadataKey("TEXT")
    /// The ID3 frame key `TFLT`.
    static let id3MetadataKeyFileType = AVMetadataKey("TFLT")
    /// The ID3 frame key `TIME`.
    static let id3MetadataKeyTime = AVMetadataKey("TIME")
    /// The ID3 frame key `TIPL`.
    static let id3MetadataKeyInvolvedPeopleList_v24 = AVMetadataKey("TIPL")
    /// The ID3 frame key `TIT1`.
    static let id3MetadataKeyContentGroupDescription = AVMetadataKey("TIT1")
    /// The ID3 frame key `TIT2`.
    static let id3MetadataKeyTitleDescription = AVMetadataKey("TIT2")
    /// The ID3 frame key `TIT3`.
    static let id3MetadataKeySubTitle = AVMetadataKey("TIT3")
    /// The ID3 frame key `TKEY`.
    static let id3MetadataKeyInitialKey = AVMetadataKey("TKEY")
    /// The ID3 frame key `TLAN`.
    static let id3MetadataKeyLanguage = AVMetadataKey("TLAN")
    /// The ID3 frame key `TLEN`.
    static let id3MetadataKeyLength = AVMetadataKey("TLEN")
    /// The ID3 frame key `TMCL`.
    static let id3MetadataKeyMusicianCreditsList = AVMetadataKey("TMCL")
    /// The ID3 frame key `TMED`.
    static let id3MetadataKeyMediaType = AVMetadataKey("TMED")
    /// The ID3 frame key `TMOO`.
    static let id3MetadataKeyMood = AVMetadataKey("TMOO")
    /// The ID3 frame key `TOAL`.
    static let id3MetadataKeyOriginalAlbumTitle = AVMetadataKey("TOAL")
    /// The ID3 frame key `TOFN`.
    static let id3MetadataKeyOriginalFilename = AVMetadataKey("TOFN")
    /// The ID3 frame key `TOLY`.
    static let id3MetadataKeyOriginalLyricist = AVMetadataKey("TOLY")
    /// The ID3 frame key `TOPE`.
    static let id3MetadataKeyOriginalArtist = AVMetadataKey("TOPE")
    /// The ID3 frame key `TORY`.
    static let id3MetadataKeyOriginalReleaseYear = AVMetadataKey("TORY")
    /// The ID3 frame key `TOWN`.
    static let id3MetadataKeyFileOwner = AVMetadataKey("TOWN")
    /// The ID3 frame key `TPE1`.
    static let id3MetadataKeyLeadPerformer = AVMetadataKey("TPE1")
    /// The ID3 frame key `TPE2`.
    static let id3MetadataKeyBand = AVMetadataKey("TPE2")
    /// The ID3 frame key `TPE3`.
    static let id3MetadataKeyConductor = AVMetadataKey("TPE3")
    /// The ID3 frame key `TPE4`.
    static let id3MetadataKeyModifiedBy = AVMetadataKey("TPE4")
    /// The ID3 frame key `TPOS`.
    static let id3MetadataKeyPartOfASet = AVMetadataKey("TPOS")
    /// The ID3 frame key `TPRO`.
    static let id3MetadataKeyProducedNotice = AVMetadataKey("TPRO")
    /// The ID3 frame key `TPUB`.
    static let id3MetadataKeyPublisher = AVMetadataKey("TPUB")
    /// The ID3 frame key `TRCK`.
    static let id3MetadataKeyTrackNumber = AVMetadataKey("TRCK")
    /// The ID3 frame key `TRDA`.
    static let id3MetadataKeyRecordingDates = AVMetadataKey("TRDA")
    /// The ID3 frame key `TRSN`.
    static let id3MetadataKeyInternetRadioStationName = AVMetadataKey("TRSN")
    /// The ID3 frame key `TRSO`.
    static let id3MetadataKeyInternetRadioStationOwner = AVMetadataKey("TRSO")
    /// The ID3 frame key `TSIZ`.
    static let id3MetadataKeySize = AVMetadataKey("TSIZ")
    /// The ID3 frame key `TSOA`.
    static let id3MetadataKeyAlbumSortOrder = AVMetadataKey("TSOA")
    /// The ID3 frame key `TSOP`.
    static let id3MetadataKeyPerformerSortOrder = AVMetadataKey("TSOP")
    /// The ID3 frame key `TSOT`.
    static let id3MetadataKeyTitleSortOrder = AVMetadataKey("TSOT")
    /// The ID3 frame key `TSRC`.
    static let id3MetadataKeyInternationalStandardRecordingCode = AVMetadataKey("TSRC")
    /// The ID3 frame key `TSST`.
    static let id3MetadataKeySetSubtitle = AVMetadataKey("TSST")
    /// The ID3 frame key `TYER`.
    static let id3MetadataKeyYear = AVMetadataKey("TYER")
    /// The ID3 frame key `TXXX`.
    static let id3MetadataKeyUserText = AVMetadataKey("TXXX")
    /// The ID3 frame key `UFID`.
    static let id3MetadataKeyUniqueFileIdentifier = AVMetadataKey("UFID")
    /// The ID3 frame key `USER`.
    static let id3MetadataKeyTermsOfUse = AVMetadataKey("USER")
    /// The ID3 frame key `USLT`.
    static let id3MetadataKeyUnsynchronizedLyric = AVMetadataKey("USLT")
    /// The ID3 frame key `WCOP`.
    static let id3MetadataKeyCopyrightInformation = AVMetadataKey("WCOP")
    /// The ID3 frame key `WOAF`.
    static let id3MetadataKeyOfficialAudioFileWebpage = AVMetadataKey("WOAF")
    /// The ID3 frame key `WOAR`.
    static let id3MetadataKeyOfficialArtistWebpage = AVMetadataKey("WOAR")
    /// The ID3 frame key `WOAS`.
    static let id3MetadataKeyOfficialAudioSourceWebpage = AVMetadataKey("WOAS")
    /// The ID3 frame key `WORS`.
    static let id3MetadataKeyOfficialInternetRadioStationHomepage = AVMetadataKey("WORS")
    /// The ID3 frame key `WPAY`.
    static let id3MetadataKeyPayment = AVMetadataKey("WPAY")
    /// The ID3 frame key `WPUB`.
    static let id3MetadataKeyOfficialPublisherWebpage = AVMetadataKey("WPUB")
    /// The ID3 frame key `WXXX`.
    static let id3MetadataKeyUserURL = AVMetadataKey("WXXX")
}
