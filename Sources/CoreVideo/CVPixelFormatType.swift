// Every kCVPixelFormatType_* constant of Apple's CVPixelBuffer.h, with Apple's OSType values.
// Formats marked "Supported." have a layout here (CVPixelFormatLayout) and can be allocated;
// creating a buffer of any other format fails with kCVReturnInvalidPixelFormat.

/// 1 bit indexed. (`0x00000001`)
public let kCVPixelFormatType_1Monochrome: OSType = 0x00000001
/// 2 bit indexed. (`0x00000002`)
public let kCVPixelFormatType_2Indexed: OSType = 0x00000002
/// 4 bit indexed. (`0x00000004`)
public let kCVPixelFormatType_4Indexed: OSType = 0x00000004
/// 8 bit indexed. (`0x00000008`)
public let kCVPixelFormatType_8Indexed: OSType = 0x00000008
/// 1 bit indexed gray, white is zero. (`0x00000021`)
public let kCVPixelFormatType_1IndexedGray_WhiteIsZero: OSType = 0x00000021
/// 2 bit indexed gray, white is zero. (`0x00000022`)
public let kCVPixelFormatType_2IndexedGray_WhiteIsZero: OSType = 0x00000022
/// 4 bit indexed gray, white is zero. (`0x00000024`)
public let kCVPixelFormatType_4IndexedGray_WhiteIsZero: OSType = 0x00000024
/// 8 bit indexed gray, white is zero. (`0x00000028`)
public let kCVPixelFormatType_8IndexedGray_WhiteIsZero: OSType = 0x00000028
/// 16 bit big-endian RGB 555. (`0x00000010`)
public let kCVPixelFormatType_16BE555: OSType = 0x00000010
/// 16 bit little-endian RGB 555. (`L555`)
public let kCVPixelFormatType_16LE555: OSType = 0x4C353535
/// 16 bit little-endian RGB 5551. (`5551`)
public let kCVPixelFormatType_16LE5551: OSType = 0x35353531
/// 16 bit big-endian RGB 565. (`B565`)
public let kCVPixelFormatType_16BE565: OSType = 0x42353635
/// 16 bit little-endian RGB 565. (`L565`)
public let kCVPixelFormatType_16LE565: OSType = 0x4C353635
/// 24 bit RGB. Supported. (`0x00000018`)
public let kCVPixelFormatType_24RGB: OSType = 0x00000018
/// 24 bit BGR. Supported. (`24BG`)
public let kCVPixelFormatType_24BGR: OSType = 0x32344247
/// 32 bit ARGB. Supported. (`0x00000020`)
public let kCVPixelFormatType_32ARGB: OSType = 0x00000020
/// 32 bit BGRA. Supported. (`BGRA`)
public let kCVPixelFormatType_32BGRA: OSType = 0x42475241
/// 32 bit ABGR. Supported. (`ABGR`)
public let kCVPixelFormatType_32ABGR: OSType = 0x41424752
/// 32 bit RGBA. Supported. (`RGBA`)
public let kCVPixelFormatType_32RGBA: OSType = 0x52474241
/// 64 bit ARGB, 16-bit big-endian samples. Supported. (`b64a`)
public let kCVPixelFormatType_64ARGB: OSType = 0x62363461
/// 64 bit RGBA, 16-bit little-endian full-range samples. (`l64r`)
public let kCVPixelFormatType_64RGBALE: OSType = 0x6C363472
/// 48 bit RGB, 16-bit big-endian samples. (`b48r`)
public let kCVPixelFormatType_48RGB: OSType = 0x62343872
/// 32 bit AlphaGray, 16-bit big-endian samples, black is zero. (`b32a`)
public let kCVPixelFormatType_32AlphaGray: OSType = 0x62333261
/// 16 bit grayscale, 16-bit big-endian samples, black is zero. (`b16g`)
public let kCVPixelFormatType_16Gray: OSType = 0x62313667
/// 30 bit RGB, 10-bit big-endian samples, 2 unused padding bits. (`R10k`)
public let kCVPixelFormatType_30RGB: OSType = 0x5231306B
/// 30 bit RGB, 10-bit big-endian samples, 2 unused padding bits at the most significant end. (`r210`)
public let kCVPixelFormatType_30RGB_r210: OSType = 0x72323130
/// Component Y'CbCr 8-bit 4:2:2, ordered Cb Y'0 Cr Y'1. Supported. (`2vuy`)
public let kCVPixelFormatType_422YpCbCr8: OSType = 0x32767579
/// Component Y'CbCrA 8-bit 4:4:4:4, ordered Cb Y' Cr A. (`v408`)
public let kCVPixelFormatType_4444YpCbCrA8: OSType = 0x76343038
/// Component Y'CbCrA 8-bit 4:4:4:4, rendering format, ordered A Y' Cb Cr. (`r408`)
public let kCVPixelFormatType_4444YpCbCrA8R: OSType = 0x72343038
/// Component Y'CbCrA 8-bit 4:4:4:4, ordered A Y' Cb Cr. (`y408`)
public let kCVPixelFormatType_4444AYpCbCr8: OSType = 0x79343038
/// Component Y'CbCrA 16-bit 4:4:4:4, ordered A Y' Cb Cr, little-endian samples. (`y416`)
public let kCVPixelFormatType_4444AYpCbCr16: OSType = 0x79343136
/// Component AY'CbCr single-precision floating point, ordered A Y' Cb Cr. (`r4fl`)
public let kCVPixelFormatType_4444AYpCbCrFloat: OSType = 0x7234666C
/// Component Y'CbCr 8-bit 4:4:4. (`v308`)
public let kCVPixelFormatType_444YpCbCr8: OSType = 0x76333038
/// Component Y'CbCr 10, 12, 14 or 16-bit 4:2:2. (`v216`)
public let kCVPixelFormatType_422YpCbCr16: OSType = 0x76323136
/// Component Y'CbCr 10-bit 4:2:2. (`v210`)
public let kCVPixelFormatType_422YpCbCr10: OSType = 0x76323130
/// Component Y'CbCr 10-bit 4:4:4. (`v410`)
public let kCVPixelFormatType_444YpCbCr10: OSType = 0x76343130
/// Planar Y'CbCr 8-bit 4:2:0 (three planes). Supported. (`y420`)
public let kCVPixelFormatType_420YpCbCr8Planar: OSType = 0x79343230
/// Planar Y'CbCr 8-bit 4:2:0, full range (three planes). Supported. (`f420`)
public let kCVPixelFormatType_420YpCbCr8PlanarFullRange: OSType = 0x66343230
/// First plane video-range Y'CbCr 8-bit 4:2:2 (Cb Y'0 Cr Y'1), second plane 8-bit alpha. (`a2vy`)
public let kCVPixelFormatType_422YpCbCr_4A_8BiPlanar: OSType = 0x61327679
/// Bi-planar Y'CbCr 8-bit 4:2:0, video range. Supported. (`420v`)
public let kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange: OSType = 0x34323076
/// Bi-planar Y'CbCr 8-bit 4:2:0, full range. Supported. (`420f`)
public let kCVPixelFormatType_420YpCbCr8BiPlanarFullRange: OSType = 0x34323066
/// Bi-planar Y'CbCr 8-bit 4:2:2, video range. Supported. (`422v`)
public let kCVPixelFormatType_422YpCbCr8BiPlanarVideoRange: OSType = 0x34323276
/// Bi-planar Y'CbCr 8-bit 4:2:2, full range. Supported. (`422f`)
public let kCVPixelFormatType_422YpCbCr8BiPlanarFullRange: OSType = 0x34323266
/// Bi-planar Y'CbCr 8-bit 4:4:4, video range. (`444v`)
public let kCVPixelFormatType_444YpCbCr8BiPlanarVideoRange: OSType = 0x34343476
/// Bi-planar Y'CbCr 8-bit 4:4:4, full range. (`444f`)
public let kCVPixelFormatType_444YpCbCr8BiPlanarFullRange: OSType = 0x34343466
/// Component Y'CbCr 8-bit 4:2:2, ordered Y'0 Cb Y'1 Cr. Supported. (`yuvs`)
public let kCVPixelFormatType_422YpCbCr8_yuvs: OSType = 0x79757673
/// Component Y'CbCr 8-bit 4:2:2, full range, ordered Y'0 Cb Y'1 Cr. (`yuvf`)
public let kCVPixelFormatType_422YpCbCr8FullRange: OSType = 0x79757666
/// 8 bit one component, black is zero. Supported. (`L008`)
public let kCVPixelFormatType_OneComponent8: OSType = 0x4C303038
/// 8 bit two component, black is zero. (`2C08`)
public let kCVPixelFormatType_TwoComponent8: OSType = 0x32433038
/// Little-endian RGB101010, 2 MSB zero, wide gamut. (`w30r`)
public let kCVPixelFormatType_30RGBLEPackedWideGamut: OSType = 0x77333072
/// Little-endian ARGB2101010, full range. (`l10r`)
public let kCVPixelFormatType_ARGB2101010LEPacked: OSType = 0x6C313072
/// Little-endian ARGB10101010, each 10 bits in the MSBs of 16, wide gamut. (`w40a`)
public let kCVPixelFormatType_40ARGBLEWideGamut: OSType = 0x77343061
/// Little-endian ARGB10101010, wide gamut, premultiplied alpha. (`w40m`)
public let kCVPixelFormatType_40ARGBLEWideGamutPremultiplied: OSType = 0x7734306D
/// 10 bit little-endian one component in the MSBs of 16 bits. (`L010`)
public let kCVPixelFormatType_OneComponent10: OSType = 0x4C303130
/// 12 bit little-endian one component in the MSBs of 16 bits. (`L012`)
public let kCVPixelFormatType_OneComponent12: OSType = 0x4C303132
/// 16 bit little-endian one component. (`L016`)
public let kCVPixelFormatType_OneComponent16: OSType = 0x4C303136
/// 16 bit little-endian two component. (`2C16`)
public let kCVPixelFormatType_TwoComponent16: OSType = 0x32433136
/// 16 bit one component IEEE half float. (`L00h`)
public let kCVPixelFormatType_OneComponent16Half: OSType = 0x4C303068
/// 32 bit one component IEEE float. (`L00f`)
public let kCVPixelFormatType_OneComponent32Float: OSType = 0x4C303066
/// 16 bit two component IEEE half float. (`2C0h`)
public let kCVPixelFormatType_TwoComponent16Half: OSType = 0x32433068
/// 32 bit two component IEEE float. (`2C0f`)
public let kCVPixelFormatType_TwoComponent32Float: OSType = 0x32433066
/// 64 bit RGBA IEEE half float. (`RGhA`)
public let kCVPixelFormatType_64RGBAHalf: OSType = 0x52476841
/// 128 bit RGBA IEEE float. (`RGfA`)
public let kCVPixelFormatType_128RGBAFloat: OSType = 0x52476641
/// Bayer 14-bit little-endian in 16 bits, G R / B G. (`grb4`)
public let kCVPixelFormatType_14Bayer_GRBG: OSType = 0x67726234
/// Bayer 14-bit little-endian in 16 bits, R G / G B. (`rgg4`)
public let kCVPixelFormatType_14Bayer_RGGB: OSType = 0x72676734
/// Bayer 14-bit little-endian in 16 bits, B G / G R. (`bgg4`)
public let kCVPixelFormatType_14Bayer_BGGR: OSType = 0x62676734
/// Bayer 14-bit little-endian in 16 bits, G B / R G. (`gbr4`)
public let kCVPixelFormatType_14Bayer_GBRG: OSType = 0x67627234
/// Half-float normalized disparity. (`hdis`)
public let kCVPixelFormatType_DisparityFloat16: OSType = 0x68646973
/// Float normalized disparity. (`fdis`)
public let kCVPixelFormatType_DisparityFloat32: OSType = 0x66646973
/// Half-float depth in meters. (`hdep`)
public let kCVPixelFormatType_DepthFloat16: OSType = 0x68646570
/// Float depth in meters. (`fdep`)
public let kCVPixelFormatType_DepthFloat32: OSType = 0x66646570
/// Bi-planar Y'CbCr 10-bit 4:2:0 in the MSBs of 16 bits, video range. Supported. (`x420`)
public let kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange: OSType = 0x78343230
/// Bi-planar Y'CbCr 10-bit 4:2:2 in the MSBs of 16 bits, video range. (`x422`)
public let kCVPixelFormatType_422YpCbCr10BiPlanarVideoRange: OSType = 0x78343232
/// Bi-planar Y'CbCr 10-bit 4:4:4 in the MSBs of 16 bits, video range. (`x444`)
public let kCVPixelFormatType_444YpCbCr10BiPlanarVideoRange: OSType = 0x78343434
/// Bi-planar Y'CbCr 10-bit 4:2:0 in the MSBs of 16 bits, full range. Supported. (`xf20`)
public let kCVPixelFormatType_420YpCbCr10BiPlanarFullRange: OSType = 0x78663230
/// Bi-planar Y'CbCr 10-bit 4:2:2 in the MSBs of 16 bits, full range. (`xf22`)
public let kCVPixelFormatType_422YpCbCr10BiPlanarFullRange: OSType = 0x78663232
/// Bi-planar Y'CbCr 10-bit 4:4:4 in the MSBs of 16 bits, full range. (`xf44`)
public let kCVPixelFormatType_444YpCbCr10BiPlanarFullRange: OSType = 0x78663434
/// 420v planes plus an 8-bit full-range alpha plane. (`v0a8`)
public let kCVPixelFormatType_420YpCbCr8VideoRange_8A_TriPlanar: OSType = 0x76306138
/// Single-plane Bayer 16-bit little-endian sensel samples (ProRes RAW). (`bp16`)
public let kCVPixelFormatType_16VersatileBayer: OSType = 0x62703136
/// Bayer 12-bit packed sensel samples (ProRes RAW). (`btp2`)
public let kCVPixelFormatType_96VersatileBayerPacked12: OSType = 0x62747032
/// 64 bit RGBA, 16-bit little-endian samples, from downscaled ProRes RAW. (`bp64`)
public let kCVPixelFormatType_64RGBA_DownscaledProResRAW: OSType = 0x62703634
/// Bi-planar Y'CbCr 16-bit 4:2:2, video range. (`sv22`)
public let kCVPixelFormatType_422YpCbCr16BiPlanarVideoRange: OSType = 0x73763232
/// Bi-planar Y'CbCr 16-bit 4:4:4, video range. (`sv44`)
public let kCVPixelFormatType_444YpCbCr16BiPlanarVideoRange: OSType = 0x73763434
/// Tri-planar video-range Y'CbCr 16-bit 4:4:4 with 16-bit alpha. (`s4as`)
public let kCVPixelFormatType_444YpCbCr16VideoRange_16A_TriPlanar: OSType = 0x73346173
/// Little-endian RGB101010 plane plus an 8-bit alpha plane. (`b3a8`)
public let kCVPixelFormatType_30RGBLE_8A_BiPlanar: OSType = 0x62336138
/// Lossless-compressed 32BGRA. (`&BGA`)
public let kCVPixelFormatType_Lossless_32BGRA: OSType = 0x26424741
/// Lossless-compressed 64RGBAHalf. (`&RhA`)
public let kCVPixelFormatType_Lossless_64RGBAHalf: OSType = 0x26526841
/// Lossless-compressed 420v. (`&8v0`)
public let kCVPixelFormatType_Lossless_420YpCbCr8BiPlanarVideoRange: OSType = 0x26387630
/// Lossless-compressed 420f. (`&8f0`)
public let kCVPixelFormatType_Lossless_420YpCbCr8BiPlanarFullRange: OSType = 0x26386630
/// Lossless-compressed packed x420. (`&xv0`)
public let kCVPixelFormatType_Lossless_420YpCbCr10PackedBiPlanarVideoRange: OSType = 0x26787630
/// Lossless-compressed packed x422. (`&xv2`)
public let kCVPixelFormatType_Lossless_422YpCbCr10PackedBiPlanarVideoRange: OSType = 0x26787632
/// Lossless-compressed packed xf20. (`&xf0`)
public let kCVPixelFormatType_Lossless_420YpCbCr10PackedBiPlanarFullRange: OSType = 0x26786630
/// Lossless-compressed 30RGBLE_8A_BiPlanar. (`&b38`)
public let kCVPixelFormatType_Lossless_30RGBLE_8A_BiPlanar: OSType = 0x26623338
/// Lossless-compressed 30RGBLEPackedWideGamut. (`&w3r`)
public let kCVPixelFormatType_Lossless_30RGBLEPackedWideGamut: OSType = 0x26773372
/// Lossy-compressed 32BGRA. (`-BGA`)
public let kCVPixelFormatType_Lossy_32BGRA: OSType = 0x2D424741
/// Lossy-compressed 420v. (`-8v0`)
public let kCVPixelFormatType_Lossy_420YpCbCr8BiPlanarVideoRange: OSType = 0x2D387630
/// Lossy-compressed 420f. (`-8f0`)
public let kCVPixelFormatType_Lossy_420YpCbCr8BiPlanarFullRange: OSType = 0x2D386630
/// Lossy-compressed packed x420. (`-xv0`)
public let kCVPixelFormatType_Lossy_420YpCbCr10PackedBiPlanarVideoRange: OSType = 0x2D787630
/// Lossy-compressed packed x422. (`-xv2`)
public let kCVPixelFormatType_Lossy_422YpCbCr10PackedBiPlanarVideoRange: OSType = 0x2D787632
