// `avtool info FILE [--json]`: what AV Foundation reports about a media file — container type,
// duration and every track — through the public asset API only.
//
// JSON keys (stable): file, fileType, duration (seconds), durationValue, durationTimescale,
// playable, providesPreciseDurationAndTiming, tracks[]: trackID, mediaType, codec (FourCC),
// enabled, playable, start, duration (seconds), naturalTimeScale, estimatedDataRate (bits/s),
// language, extendedLanguageTag, characteristics[]; video tracks add width, height,
// nominalFrameRate, transform [a, b, c, d, tx, ty], requiresFrameReordering; audio tracks add
// sampleRate, channels, framesPerPacket. Absent values are omitted.
import ArgumentParser
import AVFoundation
import Foundation

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a media file's container, duration and tracks as AVAsset reports them.")

    @Argument(help: "The media file.")
    var file: String

    @Flag(help: "Print JSON (stable keys, documented in the source).")
    var json = false

    func run() throws {
        let url = URL(fileURLWithPath: file)
        let asset = AVURLAsset(url: url)
        // Load with the classic API (this command is synchronous), then read the loaded values.
        let done = DispatchSemaphore(value: 0)
        asset.loadValuesAsynchronously(forKeys: ["duration", "tracks", "playable", "providesPreciseDurationAndTiming"]) {
            done.signal()
        }
        done.wait()
        for key in ["tracks", "duration"] {
            var error: NSError?
            if asset.statusOfValue(forKey: key, error: &error) != .loaded {
                let reason = (error?.userInfo[NSLocalizedFailureReasonErrorKey] as? String).map { ": \($0)" } ?? ""
                let code = error.map { " (\($0.domain) \($0.code))" } ?? ""
                FileHandle.standardError.write(Data("avtool: \(file): \(error?.localizedDescription ?? "cannot open")\(reason)\(code)\n".utf8))
                throw ExitCode(1)
            }
        }
        var report: [String: Any] = [
            "file": file,
            "playable": asset.isPlayable,
            "providesPreciseDurationAndTiming": asset.providesPreciseDurationAndTiming,
        ]
        if asset.duration.isNumeric {
            report["duration"] = asset.duration.seconds
            report["durationValue"] = asset.duration.value
            report["durationTimescale"] = Int(asset.duration.timescale)
        }
        if let type = UTType(filenameExtension: url.pathExtension) { report["fileType"] = type.identifier }
        report["tracks"] = asset.tracks.map(describe)
        if json {
            let data = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
        } else {
            printText(report)
        }
    }

    private func describe(_ track: AVAssetTrack) -> [String: Any] {
        var t: [String: Any] = [
            "trackID": Int(track.trackID),
            "mediaType": track.mediaType.rawValue,
            "enabled": track.isEnabled,
            "playable": track.isPlayable,
            "naturalTimeScale": Int(track.naturalTimeScale),
            "estimatedDataRate": Double(track.estimatedDataRate),
            "characteristics": track.mediaCharacteristics.map(\.rawValue),
        ]
        let range = track.timeRange
        if range.start.isNumeric && range.duration.isNumeric {
            t["start"] = range.start.seconds
            t["duration"] = range.duration.seconds
        }
        if let fd = track.formatDescriptions.first.map({ $0 as! CMFormatDescription }) {
            t["codec"] = fourCC(CMFormatDescriptionGetMediaSubType(fd))
            if let asbd = fd.audioStreamBasicDescription {
                t["sampleRate"] = asbd.mSampleRate
                t["channels"] = Int(asbd.mChannelsPerFrame)
                if asbd.mFramesPerPacket > 0 { t["framesPerPacket"] = Int(asbd.mFramesPerPacket) }
            }
        }
        if let language = track.languageCode { t["language"] = language }
        if let tag = track.extendedLanguageTag { t["extendedLanguageTag"] = tag }
        if track.mediaType == .video {
            t["width"] = Double(track.naturalSize.width)
            t["height"] = Double(track.naturalSize.height)
            if track.nominalFrameRate.isFinite { t["nominalFrameRate"] = Double(track.nominalFrameRate) }
            let m = track.preferredTransform
            t["transform"] = [m.a, m.b, m.c, m.d, m.tx, m.ty].map { Double($0) }
            t["requiresFrameReordering"] = track.requiresFrameReordering
        }
        return t
    }

    private func printText(_ r: [String: Any]) {
        print("File:      \(file)")
        if let type = r["fileType"] as? String { print("Type:      \(type)") }
        if let d = r["duration"] as? Double {
            print("Duration:  \(String(format: "%.3f", d)) s (\(r["durationValue"] ?? 0)/\(r["durationTimescale"] ?? 0))")
        } else {
            print("Duration:  unknown")
        }
        print("Playable:  \(r["playable"] as? Bool == true ? "yes" : "no")")
        for t in r["tracks"] as? [[String: Any]] ?? [] {
            var line = "Track \(t["trackID"] ?? 0): \(t["mediaType"] ?? "") \(t["codec"] ?? "?")"
            if let w = t["width"] as? Double, let h = t["height"] as? Double { line += String(format: " %gx%g", w, h) }
            if let f = t["nominalFrameRate"] as? Double, f > 0 { line += String(format: " %.3f fps", f) }
            if let s = t["sampleRate"] as? Double { line += String(format: " %g Hz", s) }
            if let c = t["channels"] as? Int { line += " \(c) ch" }
            if let l = t["language"] as? String { line += " [\(l)]" }
            if let b = t["estimatedDataRate"] as? Double, b > 0 { line += String(format: " %.0f kb/s", b / 1000) }
            if let m = t["transform"] as? [Double], m != [1, 0, 0, 1, 0, 0] { line += " transform \(m)" }
            if t["enabled"] as? Bool == false { line += " (disabled)" }
            print(line)
        }
    }
}
