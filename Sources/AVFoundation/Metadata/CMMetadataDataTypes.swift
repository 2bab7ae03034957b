// Core Media's metadata base data types (CMMetadata.h), which `AVMetadataItem.dataType` reports.
// On Apple platforms these live in Core Media; here AVFoundation declares them, and
// `import AVFoundation` brings them in the same as it does on Apple's side.
import Foundation

/// Raw bytes, `"com.apple.metadata.datatype.raw-data"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_RawData: CFString = "com.apple.metadata.datatype.raw-data"
/// UTF-8 text, `"com.apple.metadata.datatype.UTF-8"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_UTF8: CFString = "com.apple.metadata.datatype.UTF-8"
/// UTF-16 text, `"com.apple.metadata.datatype.UTF-16"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_UTF16: CFString = "com.apple.metadata.datatype.UTF-16"
/// A GIF image, `"com.apple.metadata.datatype.GIF"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_GIF: CFString = "com.apple.metadata.datatype.GIF"
/// A JPEG image, `"com.apple.metadata.datatype.JPEG"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_JPEG: CFString = "com.apple.metadata.datatype.JPEG"
/// A PNG image, `"com.apple.metadata.datatype.PNG"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_PNG: CFString = "com.apple.metadata.datatype.PNG"
/// A BMP image, `"com.apple.metadata.datatype.BMP"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_BMP: CFString = "com.apple.metadata.datatype.BMP"
/// A big-endian IEEE 754 32-bit float, `"com.apple.metadata.datatype.float32"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_Float32: CFString = "com.apple.metadata.datatype.float32"
/// A big-endian IEEE 754 64-bit float, `"com.apple.metadata.datatype.float64"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_Float64: CFString = "com.apple.metadata.datatype.float64"
/// A signed 8-bit integer, `"com.apple.metadata.datatype.int8"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_SInt8: CFString = "com.apple.metadata.datatype.int8"
/// A big-endian signed 16-bit integer, `"com.apple.metadata.datatype.int16"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_SInt16: CFString = "com.apple.metadata.datatype.int16"
/// A big-endian signed 32-bit integer, `"com.apple.metadata.datatype.int32"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_SInt32: CFString = "com.apple.metadata.datatype.int32"
/// A big-endian signed 64-bit integer, `"com.apple.metadata.datatype.int64"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_SInt64: CFString = "com.apple.metadata.datatype.int64"
/// An unsigned 8-bit integer, `"com.apple.metadata.datatype.uint8"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_UInt8: CFString = "com.apple.metadata.datatype.uint8"
/// A big-endian unsigned 16-bit integer, `"com.apple.metadata.datatype.uint16"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_UInt16: CFString = "com.apple.metadata.datatype.uint16"
/// A big-endian unsigned 32-bit integer, `"com.apple.metadata.datatype.uint32"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_UInt32: CFString = "com.apple.metadata.datatype.uint32"
/// A big-endian unsigned 64-bit integer, `"com.apple.metadata.datatype.uint64"`.
nonisolated(unsafe) public let kCMMetadataBaseDataType_UInt64: CFString = "com.apple.metadata.datatype.uint64"
/// A location as an ISO 6709 string (QuickTime metadata), `"com.apple.quicktime.iso6709"`.
nonisolated(unsafe) public let kCMMetadataDataType_QuickTimeMetadataLocation_ISO6709: CFString = "com.apple.quicktime.iso6709"
