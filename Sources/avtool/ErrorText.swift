// How avtool reports a failure: always why, never a bare "Cannot Open".
import AVFoundation
import Foundation

/// An error as avtool prints it: the description, the failure reason, the underlying error (FFmpeg's
/// or the system's message) when it adds something, and the domain and code —
/// `Cannot Open: This media may be damaged. (AVFoundationErrorDomain -11829; underlying:
/// FFmpegErrorDomain -1094995529 "Invalid data found when processing input")`.
func errorText(_ error: any Error) -> String {
    if let demo = error as? DemoError { return demo.description }
    let ns = error as NSError
    var text = ns.localizedDescription
    let reason = ns.localizedFailureReason ?? ns.userInfo[NSLocalizedFailureReasonErrorKey] as? String
    if let reason, !reason.isEmpty, reason != text { text += ": \(reason)" }
    var codes = "\(ns.domain) \(ns.code)"
    if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError {
        codes += "; underlying: \(underlying.domain) \(underlying.code)"
        let message = underlying.localizedDescription
        if !message.isEmpty, !text.contains(message) { codes += " \"\(message)\"" }
    }
    return "\(text) (\(codes))"
}

/// Why `asset` cannot be used, when loading its tracks or duration fails (a damaged or unreadable
/// file): an export of such an asset fails with a file type "not supported", which says nothing
/// about the file itself.
func assetLoadingError(_ asset: AVAsset) -> (any Error)? {
    let done = DispatchSemaphore(value: 0)
    asset.loadValuesAsynchronously(forKeys: ["tracks", "duration"]) { done.signal() }
    done.wait()
    for key in ["tracks", "duration"] {
        var error: NSError?
        if asset.statusOfValue(forKey: key, error: &error) == .failed { return error ?? AVError(.fileFailedToParse) }
    }
    return nil
}

/// Why an export of `asset` can write no file type at all: the asset cannot be read, has no
/// tracks, or has none an export can carry — said in words, never as an empty list.
func exportRefusalText(_ asset: AVAsset) -> String {
    if let loading = assetLoadingError(asset) { return errorText(loading) }
    let tracks = asset.tracks
    if tracks.isEmpty { return "it has no tracks (AVAsset.tracks is empty)" }
    let described = tracks.map { track -> String in
        let codec = (track.formatDescriptions.first as? CMFormatDescription).map { fourCC(CMFormatDescriptionGetMediaSubType($0)) } ?? "no format"
        return "\(track.mediaType.rawValue) \(codec)"
    }
    return "none of its tracks can be exported (\(described.joined(separator: ", ")))"
}

