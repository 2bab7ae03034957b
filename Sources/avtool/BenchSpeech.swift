// The speech case of `avtool bench`: the same text and voice spoken into a WAV file by
// `avtool say -o` (AVSpeechSynthesizer.write(_:toBufferCallback:) into an AVAudioFile) and by the
// espeak-ng CLI (`espeak-ng -w`), each a whole process, best of the runs.
import AVFoundation

/// Times `avtool say -v en-us -f TEXT -o OUT.wav` against `espeak-ng -v en-us -f TEXT -w OUT.wav`
/// on one sentence (where process start-up dominates) and on a long text (~38 minutes of speech,
/// where synthesis does); prints one line each.
func benchSpeech(in dir: URL, repeats: Int) throws {
    let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    let paragraph = "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of "
        + "foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season of Light, it was the "
        + "season of Darkness, it was the spring of hope, it was the winter of despair, we had everything before us, we had "
        + "nothing before us, we were all going direct to Heaven, we were all going direct the other way.\n"
    let cases: [(label: String, text: String, runs: Int)] = [
        ("say -o WAV, one sentence", "Hello AV Foundation. How are you?\n", max(9, 3 * repeats)),
        ("say -o WAV, 38 min of speech", String(repeating: paragraph, count: 60), max(1, repeats)),
    ]
    print("(speech: the peer column is the espeak-ng CLI, not ffmpeg)")
    for (index, c) in cases.enumerated() {
        let text = dir.appendingPathComponent("speech-\(index).txt")
        try Data(c.text.utf8).write(to: text)
        let ourFile = dir.appendingPathComponent("speech-ours-\(index).wav").path
        let theirFile = dir.appendingPathComponent("speech-espeak-\(index).wav").path
        var ours = Double.infinity, theirs = Double.infinity
        for _ in 0..<c.runs {
            var t0 = DispatchTime.now().uptimeNanoseconds
            try runTool(me.path, ["say", "-v", "en-us", "-f", text.path, "-o", ourFile], absolute: true)
            ours = min(ours, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
            t0 = DispatchTime.now().uptimeNanoseconds
            try runTool("espeak-ng", ["-v", "en-us", "-f", text.path, "-w", theirFile])
            theirs = min(theirs, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
        }
        // Both wrote 16-bit mono at 22 050 Hz: the sizes say how much speech each made.
        let sizes = [ourFile, theirFile].map { ((try? FileManager.default.attributesOfItem(atPath: $0)[.size]) as? Int) ?? 0 }
        guard sizes.allSatisfy({ $0 > 44 }) else { throw DemoError("the speech case wrote no audio") }
        report("\(c.label) (\(String(format: "%.0f", Double(sizes[0] - 44) / 44_100)) s)", ours, theirs)
        try? FileManager.default.removeItem(atPath: ourFile)
        try? FileManager.default.removeItem(atPath: theirFile)
    }
}
