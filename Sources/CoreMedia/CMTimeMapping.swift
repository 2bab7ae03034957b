// CMTimeMapping: a source range mapped onto a target range (edit lists, track segments).
import CoreFoundationCompat

/// A mapping of a source time range to a target time range. An empty mapping (an edit with no
/// media) has an invalid source and a valid target.
public struct CMTimeMapping: Sendable {
    /// The range in the source (media) timeline.
    public var source: CMTimeRange
    /// The range in the target (track) timeline.
    public var target: CMTimeRange

    /// The zero-initialised mapping, as in C: both ranges are zero-initialised (invalid).
    public init() {
        source = CMTimeRange()
        target = CMTimeRange()
    }

    /// Creates a mapping from `source` to `target`, exactly as given.
    public init(source: CMTimeRange, target: CMTimeRange) {
        self.source = source
        self.target = target
    }
}

/// The invalid mapping: source and target are `kCMTimeRangeInvalid`.
public let kCMTimeMappingInvalid = CMTimeMapping(source: kCMTimeRangeInvalid, target: kCMTimeRangeInvalid)

extension CMTimeMapping {
    /// The invalid mapping. Test with `isValid`, not `==`.
    public static let invalid = kCMTimeMappingInvalid

    /// True when the target range is valid.
    public var isValid: Bool { target.isValid }

    /// True for an empty mapping: a valid target whose source start is not numeric.
    public var isEmpty: Bool { !source.start.isNumeric && target.isValid }
}

/// Whether `mapping` is valid (its target range is valid).
@discardableResult
public func CMTIMEMAPPING_IS_VALID(_ mapping: CMTimeMapping) -> Bool { mapping.isValid }
/// Whether `mapping` is invalid (its target range is invalid).
@discardableResult
public func CMTIMEMAPPING_IS_INVALID(_ mapping: CMTimeMapping) -> Bool { !mapping.isValid }
/// Whether `mapping` is empty (a valid target with a non-numeric source start).
@discardableResult
public func CMTIMEMAPPING_IS_EMPTY(_ mapping: CMTimeMapping) -> Bool { mapping.isEmpty }

/// Makes a mapping from `source` to `target`. As CMTimeRange.h documents, both durations must be
/// in epoch 0; otherwise the result is `kCMTimeMappingInvalid`.
@discardableResult
public func CMTimeMappingMake(source: CMTimeRange, target: CMTimeRange) -> CMTimeMapping {
    guard source.duration.epoch == 0, target.duration.epoch == 0 else { return kCMTimeMappingInvalid }
    return CMTimeMapping(source: source, target: target)
}

/// Makes an empty mapping for `target`: the source start and duration are `kCMTimeInvalid`. The
/// target duration must be in epoch 0; otherwise the result is `kCMTimeMappingInvalid`.
@discardableResult
public func CMTimeMappingMakeEmpty(target: CMTimeRange) -> CMTimeMapping {
    guard target.duration.epoch == 0 else { return kCMTimeMappingInvalid }
    return CMTimeMapping(source: CMTimeRange(start: kCMTimeInvalid, duration: kCMTimeInvalid), target: target)
}

extension CMTimeMapping: Equatable {
    /// Whether both ranges are equal by `CMTimeRangeEqual`.
    public static func == (lhs: CMTimeMapping, rhs: CMTimeMapping) -> Bool {
        lhs.source == rhs.source && lhs.target == rhs.target
    }
}

extension CMTimeMapping: Hashable {
    /// Hashes both ranges, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(target)
    }
}

extension CMTimeMapping: Codable {
    private enum CodingKeys: String, CodingKey { case source, target }

    /// Decodes `source` and `target`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(source: try container.decode(CMTimeRange.self, forKey: .source),
                  target: try container.decode(CMTimeRange.self, forKey: .target))
    }

    /// Encodes `source` and `target`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(source, forKey: .source)
        try container.encode(target, forKey: .target)
    }
}

extension CMTimeMapping {
    /// The `CMTimeMappingCopyDescription` text: `{source = {…}, target = {…}}` with each range in
    /// `CMTimeRangeCopyDescription`'s format (Apple's exact text is not documented).
    var copyDescription: String { "{source = \(source.copyDescription), target = \(target.copyDescription)}" }
}

/// A description of `mapping`: `{source = {…}, target = {…}}` with each range in
/// `CMTimeRangeCopyDescription`'s format. The allocator is ignored.
@discardableResult
public func CMTimeMappingCopyDescription(allocator: CFAllocator?, mapping: CMTimeMapping) -> CFString? {
    NSString(string: mapping.copyDescription)
}

/// Prints the description of `mapping` (as `CMTimeMappingCopyDescription`) and a newline to
/// standard output.
public func CMTimeMappingShow(_ mapping: CMTimeMapping) {
    print(mapping.copyDescription)
}

/// The dictionary key of a mapping's source range (a CMTimeRange dictionary).
nonisolated(unsafe) public let kCMTimeMappingSourceKey: CFString = "source"
/// The dictionary key of a mapping's target range (a CMTimeRange dictionary).
nonisolated(unsafe) public let kCMTimeMappingTargetKey: CFString = "target"

/// A dictionary holding the source and target ranges as CMTimeRange dictionaries under
/// `kCMTimeMappingSourceKey` and `kCMTimeMappingTargetKey`. The allocator is ignored.
@discardableResult
public func CMTimeMappingCopyAsDictionary(_ mapping: CMTimeMapping, allocator: CFAllocator?) -> CFDictionary? {
    guard let source = CMTimeRangeCopyAsDictionary(mapping.source, allocator: allocator),
          let target = CMTimeRangeCopyAsDictionary(mapping.target, allocator: allocator) else { return nil }
    return NSDictionary(dictionary: [kCMTimeMappingSourceKey: source, kCMTimeMappingTargetKey: target])
}

/// The mapping a `CMTimeMappingCopyAsDictionary` dictionary describes; `kCMTimeMappingInvalid`
/// if either entry is missing or not a dictionary.
@discardableResult
public func CMTimeMappingMakeFromDictionary(_ dictionaryRepresentation: CFDictionary) -> CMTimeMapping {
    guard let source = dictionaryField(dictionaryRepresentation, (kCMTimeMappingSourceKey as String)),
          let target = dictionaryField(dictionaryRepresentation, (kCMTimeMappingTargetKey as String))
    else { return kCMTimeMappingInvalid }
    return CMTimeMapping(source: CMTimeRangeMakeFromDictionary(source), target: CMTimeRangeMakeFromDictionary(target))
}
