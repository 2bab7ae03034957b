// Colour description of pixel buffers: Core Video's attachment strings ↔ FFmpeg's colour enums
// and libswscale's coefficient tables.
internal import CFFmpeg
import CoreVideo

/// Core Video's colour attachment keys and values, and their FFmpeg counterparts.
///
/// The string values are Apple's (`kCVImageBufferYCbCrMatrix_ITU_R_709_2` is `"ITU_R_709_2"`),
/// so attachments set by public CoreVideo code and by the engine are interchangeable.
package enum PixelFormatColor {
    /// `kCVImageBufferYCbCrMatrixKey`.
    package static let matrixKey = "CVImageBufferYCbCrMatrix"
    /// `kCVImageBufferColorPrimariesKey`.
    package static let primariesKey = "CVImageBufferColorPrimaries"
    /// `kCVImageBufferTransferFunctionKey`.
    package static let transferFunctionKey = "CVImageBufferTransferFunction"
    /// `kCVImageBufferGammaLevelKey`.
    package static let gammaLevelKey = "CVImageBufferGammaLevel"
    /// `kCVImageBufferChromaLocationTopFieldKey`.
    package static let chromaLocationTopFieldKey = "CVImageBufferChromaLocationTopField"
    /// `kCVImageBufferChromaLocationBottomFieldKey`.
    package static let chromaLocationBottomFieldKey = "CVImageBufferChromaLocationBottomField"
    /// `kCVImageBufferCleanApertureKey`.
    package static let cleanApertureKey = "CVImageBufferCleanAperture"
    /// `kCVImageBufferPixelAspectRatioKey`.
    package static let pixelAspectRatioKey = "CVPixelAspectRatio"

    /// A Y'CbCr matrix (`kCVImageBufferYCbCrMatrix_*`).
    package enum Matrix: String, Sendable, Hashable, CaseIterable {
        /// BT.601 (`kCVImageBufferYCbCrMatrix_ITU_R_601_4`).
        case itu601 = "ITU_R_601_4"
        /// BT.709 (`kCVImageBufferYCbCrMatrix_ITU_R_709_2`).
        case itu709 = "ITU_R_709_2"
        /// BT.2020 non-constant luminance (`kCVImageBufferYCbCrMatrix_ITU_R_2020`).
        case itu2020 = "ITU_R_2020"
        /// SMPTE 240M (`kCVImageBufferYCbCrMatrix_SMPTE_240M_1995`).
        case smpte240M = "SMPTE_240M_1995"

        /// The matrix assumed when a buffer carries none: BT.601 for pictures less than 720
        /// rows high (standard definition), BT.709 otherwise — the usual video convention, and
        /// what FFmpeg's players assume.
        package static func defaultMatrix(height: Int) -> Matrix { height < 720 ? .itu601 : .itu709 }

        /// The libswscale coefficient table selector (`SWS_CS_*`).
        package var swsColorspace: Int32 {
            switch self {
            case .itu601: return SWS_CS_ITU601
            case .itu709: return SWS_CS_ITU709
            case .itu2020: return SWS_CS_BT2020
            case .smpte240M: return SWS_CS_SMPTE240M
            }
        }

        /// FFmpeg's colour space tag.
        var avColorSpace: AVColorSpace {
            switch self {
            case .itu601: return AVCOL_SPC_SMPTE170M
            case .itu709: return AVCOL_SPC_BT709
            case .itu2020: return AVCOL_SPC_BT2020_NCL
            case .smpte240M: return AVCOL_SPC_SMPTE240M
            }
        }

        /// The matrix for FFmpeg's colour space tag; nil for unspecified or unmapped tags.
        init?(_ space: AVColorSpace) {
            switch space {
            case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_FCC: self = .itu601
            case AVCOL_SPC_BT709: self = .itu709
            case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: self = .itu2020
            case AVCOL_SPC_SMPTE240M: self = .smpte240M
            default: return nil
            }
        }
    }

    /// The Core Video colour primaries value for FFmpeg's tag; nil when unspecified or unmapped.
    static func primaries(_ p: AVColorPrimaries) -> String? {
        switch p {
        case AVCOL_PRI_BT709: return "ITU_R_709_2"
        case AVCOL_PRI_BT470BG: return "EBU_3213"
        case AVCOL_PRI_SMPTE170M, AVCOL_PRI_SMPTE240M: return "SMPTE_C"
        case AVCOL_PRI_BT2020: return "ITU_R_2020"
        case AVCOL_PRI_SMPTE431: return "DCI_P3"
        case AVCOL_PRI_SMPTE432: return "P3_D65"
        case AVCOL_PRI_EBU3213: return "P22"
        default: return nil
        }
    }

    /// FFmpeg's primaries tag for a Core Video value (`AVCOL_PRI_UNSPECIFIED` when unknown).
    static func avPrimaries(_ value: String?) -> AVColorPrimaries {
        switch value {
        case "ITU_R_709_2": return AVCOL_PRI_BT709
        case "EBU_3213": return AVCOL_PRI_BT470BG
        case "SMPTE_C": return AVCOL_PRI_SMPTE170M
        case "ITU_R_2020": return AVCOL_PRI_BT2020
        case "DCI_P3": return AVCOL_PRI_SMPTE431
        case "P3_D65": return AVCOL_PRI_SMPTE432
        case "P22": return AVCOL_PRI_EBU3213
        default: return AVCOL_PRI_UNSPECIFIED
        }
    }

    /// The Core Video transfer function value for FFmpeg's tag; nil when unspecified or unmapped.
    /// BT.601 and BT.2020 SDR share BT.709's curve, which Apple names after each standard.
    static func transferFunction(_ t: AVColorTransferCharacteristic) -> String? {
        switch t {
        case AVCOL_TRC_BT709, AVCOL_TRC_SMPTE170M: return "ITU_R_709_2"
        case AVCOL_TRC_SMPTE240M: return "SMPTE_240M_1995"
        case AVCOL_TRC_BT2020_10, AVCOL_TRC_BT2020_12: return "ITU_R_2020"
        case AVCOL_TRC_SMPTE2084: return "SMPTE_ST_2084_PQ"
        case AVCOL_TRC_ARIB_STD_B67: return "ITU_R_2100_HLG"
        case AVCOL_TRC_SMPTE428: return "SMPTE_ST_428_1"
        case AVCOL_TRC_IEC61966_2_1: return "IEC_sRGB"
        case AVCOL_TRC_LINEAR: return "Linear"
        case AVCOL_TRC_GAMMA22, AVCOL_TRC_GAMMA28: return "UseGamma"
        default: return nil
        }
    }

    /// FFmpeg's transfer tag for a Core Video value (`AVCOL_TRC_UNSPECIFIED` when unknown).
    static func avTransferFunction(_ value: String?, gamma: Double? = nil) -> AVColorTransferCharacteristic {
        switch value {
        case "ITU_R_709_2": return AVCOL_TRC_BT709
        case "SMPTE_240M_1995": return AVCOL_TRC_SMPTE240M
        case "ITU_R_2020": return AVCOL_TRC_BT2020_10
        case "SMPTE_ST_2084_PQ": return AVCOL_TRC_SMPTE2084
        case "ITU_R_2100_HLG": return AVCOL_TRC_ARIB_STD_B67
        case "SMPTE_ST_428_1": return AVCOL_TRC_SMPTE428
        case "IEC_sRGB": return AVCOL_TRC_IEC61966_2_1
        case "Linear": return AVCOL_TRC_LINEAR
        case "UseGamma":
            if let gamma, abs(gamma - 2.8) < 0.05 { return AVCOL_TRC_GAMMA28 }
            return gamma.map { abs($0 - 2.2) < 0.05 ? AVCOL_TRC_GAMMA22 : AVCOL_TRC_UNSPECIFIED } ?? AVCOL_TRC_UNSPECIFIED
        default: return AVCOL_TRC_UNSPECIFIED
        }
    }

    /// The Core Video chroma location value for FFmpeg's tag; nil when unspecified.
    static func chromaLocation(_ loc: AVChromaLocation) -> String? {
        switch loc {
        case AVCHROMA_LOC_LEFT: return "Left"
        case AVCHROMA_LOC_CENTER: return "Center"
        case AVCHROMA_LOC_TOPLEFT: return "TopLeft"
        case AVCHROMA_LOC_TOP: return "Top"
        case AVCHROMA_LOC_BOTTOMLEFT: return "BottomLeft"
        case AVCHROMA_LOC_BOTTOM: return "Bottom"
        default: return nil
        }
    }

    /// FFmpeg's chroma location for a Core Video value (`AVCHROMA_LOC_UNSPECIFIED` when unknown).
    static func avChromaLocation(_ value: String?) -> AVChromaLocation {
        switch value {
        case "Left": return AVCHROMA_LOC_LEFT
        case "Center": return AVCHROMA_LOC_CENTER
        case "TopLeft": return AVCHROMA_LOC_TOPLEFT
        case "Top": return AVCHROMA_LOC_TOP
        case "BottomLeft": return AVCHROMA_LOC_BOTTOMLEFT
        case "Bottom": return AVCHROMA_LOC_BOTTOM
        default: return AVCHROMA_LOC_UNSPECIFIED
        }
    }

    /// The Y'CbCr matrix attached to `buffer` (either propagation mode), nil when absent or unknown.
    package static func attachedMatrix(of buffer: CVBuffer) -> Matrix? {
        (attachment(matrixKey, of: buffer) as? String).flatMap(Matrix.init(rawValue:))
    }

    /// An attachment of `buffer` in either propagation mode.
    /// The colour space for an image made from `buffer`: the one its colour primaries attachment
    /// names (BT.2020, Display P3, DCI-P3), sRGB otherwise.
    package static func colorSpace(of buffer: CVPixelBuffer) -> CGColorSpace {
        let name: CFString
        switch attachment(primariesKey, of: buffer) as? String {
        case "ITU_R_2020": name = CGColorSpace.itur_2020
        case "P3_D65": name = CGColorSpace.displayP3
        case "DCI_P3": name = CGColorSpace.dcip3
        default: name = CGColorSpace.sRGB
        }
        return CGColorSpace(name: name) ?? CGColorSpaceCreateDeviceRGB()
    }

    package static func attachment(_ key: String, of buffer: CVBuffer) -> Any? {
        buffer.mutex.lock()
        defer { buffer.mutex.unlock() }
        return buffer.attachmentsByMode[.shouldPropagate]?[key] ?? buffer.attachmentsByMode[.shouldNotPropagate]?[key]
    }

    /// Sets a propagating attachment of `buffer` (or removes it when `value` is nil).
    package static func setAttachment(_ key: String, _ value: Any?, on buffer: CVBuffer) {
        buffer.mutex.lock()
        defer { buffer.mutex.unlock() }
        buffer.attachmentsByMode[.shouldNotPropagate]?[key] = nil
        buffer.attachmentsByMode[.shouldPropagate, default: [:]][key] = value
    }
}
