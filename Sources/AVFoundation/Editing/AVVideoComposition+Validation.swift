// AVVideoComposition validation: whether the composition's values, instruction time ranges and
// layer track IDs follow Apple's rules, each problem reported to a delegate (book R11.1.4).
import CoreGraphics
import CoreMedia
import Foundation

extension AVVideoComposition {
    /// Whether the composition is valid, reporting each problem to `validationDelegate` (which
    /// can stop the search by returning false):
    ///
    /// 1. invalid values — `frameDuration` not a positive number, a `renderSize` side not
    ///    positive, `renderScale` not positive;
    /// 2. instructions with an invalid time range (not numeric, duration not positive), or one
    ///    that overlaps or starts before a prior instruction's;
    /// 3. empty time ranges no instruction covers: from zero to the first instruction, between
    ///    instructions, and — with an asset — from the last instruction's end to the asset's
    ///    duration (audio longer than the video included);
    /// 4. with an asset, layer instructions whose track ID is not a track of the asset.
    ///
    /// Only instructions overlapping `timeRange` and empty ranges inside it are reported
    /// (pass `CMTimeRange(start: .zero, duration: .positiveInfinity)` for all). Pass nil for
    /// `asset` to skip the checks against its duration and tracks; load its `tracks` and
    /// `duration` first (they are loaded here, blocking, when not).
    public func isValid(for asset: AVAsset?, timeRange: CMTimeRange, validationDelegate: (any AVVideoCompositionValidationHandling)?) -> Bool {
        validate(tracks: asset.map { $0.tracks }, duration: asset?.duration, asset: asset, timeRange: timeRange, delegate: validationDelegate)
    }

    /// `isValid(for:timeRange:validationDelegate:)` after loading the asset's tracks and
    /// duration; throws the error loading them met.
    public func isValid(for asset: AVAsset?, timeRange: CMTimeRange,
                        validationDelegate: (any AVVideoCompositionValidationHandling)?) async throws -> Bool {
        guard let asset else { return validate(tracks: nil, duration: nil, asset: nil, timeRange: timeRange, delegate: validationDelegate) }
        let (tracks, duration) = try await asset.load(.tracks, .duration)
        return validate(tracks: tracks, duration: duration, asset: asset, timeRange: timeRange, delegate: validationDelegate)
    }

    /// The completion-handler form of the asynchronous `isValid(for:timeRange:validationDelegate:)`:
    /// `completionHandler` gets the result on a background queue (false and the error when
    /// loading the asset failed).
    public func determineValidity(for asset: AVAsset?, timeRange: CMTimeRange, validationDelegate: (any AVVideoCompositionValidationHandling)?,
                                  completionHandler: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let box = UncheckedBox(validationDelegate)
        guard let asset else {
            return completionHandler(validate(tracks: nil, duration: nil, asset: nil, timeRange: timeRange, delegate: box.value), nil)
        }
        Self.whenLoaded(asset) { [self] error in
            if let error { return completionHandler(false, error) }
            completionHandler(validate(tracks: asset.tracks, duration: asset.duration, asset: asset, timeRange: timeRange, delegate: box.value),
                              nil)
        }
    }

    /// Validation against a list of tracks (all of one asset) and a duration rather than an
    /// asset: `tracks` empty skips the track ID checks, `duration` `.invalid` the coverage of it.
    public func isValid(for tracks: [AVAssetTrack], assetDuration duration: CMTime, timeRange: CMTimeRange,
                        validationDelegate: (any AVVideoCompositionValidationHandling)?) -> Bool {
        let asset = tracks.first?.asset
        return validate(tracks: tracks.isEmpty ? nil : tracks, duration: duration.isValid ? duration : nil, asset: asset,
                        timeRange: timeRange, delegate: validationDelegate)
    }

    /// The checks, in the order `isValid(for:timeRange:validationDelegate:)` lists them per
    /// instruction; false as soon as the delegate says stop, else whether nothing was found.
    func validate(tracks: [AVAssetTrack]?, duration: CMTime?, asset: AVAsset?, timeRange: CMTimeRange,
                  delegate: (any AVVideoCompositionValidationHandling)?) -> Bool {
        var valid = true
        /// Records a problem; returns whether to go on.
        func found(_ keepGoing: Bool?) -> Bool {
            valid = false
            return keepGoing ?? true
        }
        let window = timeRange.isValid ? timeRange : CMTimeRange(start: .zero, duration: .positiveInfinity)
        func reportEmpty(_ from: CMTime, _ to: CMTime) -> Bool {
            let gap = CMTimeRange(start: from, end: to).intersection(window)
            guard gap.isValid, gap.duration > .zero else { return true }
            return found(delegate?.videoComposition(self, shouldContinueValidatingAfterFindingEmptyTimeRange: gap))
        }

        if !(frameDuration.isNumeric && frameDuration > .zero),
           !found(delegate?.videoComposition(self, shouldContinueValidatingAfterFindingInvalidValueForKey: "frameDuration")) { return false }
        if !(renderSize.width > 0 && renderSize.height > 0),
           !found(delegate?.videoComposition(self, shouldContinueValidatingAfterFindingInvalidValueForKey: "renderSize")) { return false }
        if !(renderScale > 0 && renderScale.isFinite),
           !found(delegate?.videoComposition(self, shouldContinueValidatingAfterFindingInvalidValueForKey: "renderScale")) { return false }

        let trackIDs = tracks.map { Set($0.map(\.trackID)) }
        var covered = CMTime.zero  // instructions cover [0, covered) so far
        for instruction in instructions {
            let range = instruction.timeRange
            guard range.isValid, range.start.isNumeric, range.duration.isNumeric, range.duration > .zero, range.start >= covered else {
                if !found(delegate?.videoComposition(self, shouldContinueValidatingAfterFindingInvalidTimeRangeIn: instruction)) { return false }
                if range.isValid, range.end.isNumeric, range.end > covered { covered = range.end }
                continue
            }
            if !reportEmpty(covered, range.start) { return false }
            covered = range.end
            guard range.intersection(window).duration > .zero, let trackIDs, let asset,
                  let builtIn = instruction as? AVVideoCompositionInstruction else { continue }
            for layer in builtIn.layerInstructions where !trackIDs.contains(layer.trackID) {
                if !found(delegate?.videoComposition(self, shouldContinueValidatingAfterFindingInvalidTrackIDIn: instruction,
                                                     layerInstruction: layer, asset: asset)) { return false }
            }
        }
        if let duration, duration.isNumeric, !reportEmpty(covered, duration) { return false }
        return valid
    }
}

/// Carries a value the compiler cannot prove sendable into a completion callback (the caller's
/// validation delegate, used on the callback's queue as Apple uses it on its own).
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
