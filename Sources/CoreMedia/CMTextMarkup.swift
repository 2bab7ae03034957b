// CMTextMarkup: the attribute keys of the attributed strings that legible media (subtitles,
// captions) is vended as — `AVPlayerItemLegibleOutput`'s strings carry them.
import Foundation

/// The text's colour: a CFArray of four CFNumbers, alpha, red, green and blue in 0…1.
nonisolated(unsafe) public let kCMTextMarkupAttribute_ForegroundColorARGB: CFString = "ForegroundColorARGB"
/// The colour of the box behind the text block (ARGB array).
nonisolated(unsafe) public let kCMTextMarkupAttribute_BackgroundColorARGB: CFString = "BackgroundColorARGB"
/// The colour behind each character run (ARGB array).
nonisolated(unsafe) public let kCMTextMarkupAttribute_CharacterBackgroundColorARGB: CFString = "CharacterBackgroundColorARGB"
/// Bold text (a CFBoolean).
nonisolated(unsafe) public let kCMTextMarkupAttribute_BoldStyle: CFString = "BoldStyle"
/// Italic text (a CFBoolean).
nonisolated(unsafe) public let kCMTextMarkupAttribute_ItalicStyle: CFString = "ItalicStyle"
/// Underlined text (a CFBoolean).
nonisolated(unsafe) public let kCMTextMarkupAttribute_UnderlineStyle: CFString = "UnderlineStyle"
/// A font family name (a CFString).
nonisolated(unsafe) public let kCMTextMarkupAttribute_FontFamilyName: CFString = "FontFamilyName"
/// Font family names in order of preference (a CFArray of CFStrings).
nonisolated(unsafe) public let kCMTextMarkupAttribute_FontFamilyNameList: CFString = "FontFamilyNameList"
/// A generic font family (one of the `kCMTextMarkupGenericFontName_` values).
nonisolated(unsafe) public let kCMTextMarkupAttribute_GenericFontFamilyName: CFString = "GenericFontFamilyName"
/// The base font size as a percentage of the video's height (a CFNumber).
nonisolated(unsafe) public let kCMTextMarkupAttribute_BaseFontSizePercentageRelativeToVideoHeight: CFString = "BaseFontSizePercentageRelativeToVideoHeight"
/// A font size relative to the base size, in percent (a CFNumber; 100 is the base).
nonisolated(unsafe) public let kCMTextMarkupAttribute_RelativeFontSize: CFString = "RelativeFontSize"
/// Vertical text (one of the `kCMTextVerticalLayout_` values).
nonisolated(unsafe) public let kCMTextMarkupAttribute_VerticalLayout: CFString = "VerticalLayout"
/// The text's alignment (one of the `kCMTextMarkupAlignmentType_` values).
nonisolated(unsafe) public let kCMTextMarkupAttribute_Alignment: CFString = "Alignment"
/// Where the text starts along the writing direction, in percent of the video's size there.
nonisolated(unsafe) public let kCMTextMarkupAttribute_TextPositionPercentageRelativeToWritingDirection: CFString = "TextPositionPercentageRelativeToWritingDirection"
/// Where the line sits across the writing direction, in percent of the video's size there.
nonisolated(unsafe) public let kCMTextMarkupAttribute_OrthogonalLinePositionPercentageRelativeToWritingDirection: CFString = "OrthogonalLinePositionPercentageRelativeToWritingDirection"
/// The width of the text block along the writing direction, in percent.
nonisolated(unsafe) public let kCMTextMarkupAttribute_WritingDirectionSizePercentage: CFString = "WritingDirectionSizePercentage"
/// The style of the characters' edges (one of the `kCMTextMarkupCharacterEdgeStyle_` values).
nonisolated(unsafe) public let kCMTextMarkupAttribute_CharacterEdgeStyle: CFString = "CharacterEdgeStyle"

/// Text aligned at the start of the writing direction.
nonisolated(unsafe) public let kCMTextMarkupAlignmentType_Start: CFString = "start"
/// Text centred along the writing direction.
nonisolated(unsafe) public let kCMTextMarkupAlignmentType_Middle: CFString = "middle"
/// Text aligned at the end of the writing direction.
nonisolated(unsafe) public let kCMTextMarkupAlignmentType_End: CFString = "end"
/// Text aligned left.
nonisolated(unsafe) public let kCMTextMarkupAlignmentType_Left: CFString = "left"
/// Text aligned right.
nonisolated(unsafe) public let kCMTextMarkupAlignmentType_Right: CFString = "right"

/// No edge style.
nonisolated(unsafe) public let kCMTextMarkupCharacterEdgeStyle_None: CFString = "none"
/// Raised characters.
nonisolated(unsafe) public let kCMTextMarkupCharacterEdgeStyle_Raised: CFString = "raised"
/// Depressed characters.
nonisolated(unsafe) public let kCMTextMarkupCharacterEdgeStyle_Depressed: CFString = "depressed"
/// Outlined characters.
nonisolated(unsafe) public let kCMTextMarkupCharacterEdgeStyle_Uniform: CFString = "uniform"
/// Characters with a drop shadow.
nonisolated(unsafe) public let kCMTextMarkupCharacterEdgeStyle_DropShadow: CFString = "dropShadow"

/// Generic font names for `kCMTextMarkupAttribute_GenericFontFamilyName`.
nonisolated(unsafe) public let kCMTextMarkupGenericFontName_Default: CFString = "default"
nonisolated(unsafe) public let kCMTextMarkupGenericFontName_Serif: CFString = "serif"
nonisolated(unsafe) public let kCMTextMarkupGenericFontName_SansSerif: CFString = "sans-serif"
nonisolated(unsafe) public let kCMTextMarkupGenericFontName_Monospace: CFString = "monospace"
nonisolated(unsafe) public let kCMTextMarkupGenericFontName_ProportionalSerif: CFString = "proportional-serif"
nonisolated(unsafe) public let kCMTextMarkupGenericFontName_ProportionalSansSerif: CFString = "proportional-sans-serif"
nonisolated(unsafe) public let kCMTextMarkupGenericFontName_MonospaceSerif: CFString = "monospace-serif"
nonisolated(unsafe) public let kCMTextMarkupGenericFontName_MonospaceSansSerif: CFString = "monospace-sans-serif"
nonisolated(unsafe) public let kCMTextMarkupGenericFontName_Casual: CFString = "casual"
nonisolated(unsafe) public let kCMTextMarkupGenericFontName_Cursive: CFString = "cursive"
nonisolated(unsafe) public let kCMTextMarkupGenericFontName_Fantasy: CFString = "fantasy"
nonisolated(unsafe) public let kCMTextMarkupGenericFontName_SmallCapital: CFString = "smallCapital"

/// Vertical layout from right to left.
nonisolated(unsafe) public let kCMTextVerticalLayout_RightToLeft: CFString = "vertical-rl"
/// Vertical layout from left to right.
nonisolated(unsafe) public let kCMTextVerticalLayout_LeftToRight: CFString = "vertical-lr"
