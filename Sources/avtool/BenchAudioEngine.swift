// The audio engine case of `avtool bench`: an AVAudioEngine graph — three players of 60 s files,
// the first through a time-pitch node at rate 2, the other two at half volume, into the main mixer —
// rendered offline (manual rendering mode) to a WAV file, against the same graph as one ffmpeg
// filtergraph (rubberband, volume, amix) writing the same WAV.
import AVFoundation

private enum EngineBench {
    static let seconds = 60, rate = 44_100
}

func benchAudioEngine(in dir: URL, repeats: Int) throws {
    var inputs: [URL] = []
    // The first plays at rate 2: 120 s of it fill the 60 s rendered, as the others do.
    for (index, source) in ["sine=f=440:r=44100:d=120", "sine=f=660:r=44100:d=60", "anoisesrc=r=44100:d=60:a=0.1"].enumerated() {
        let url = dir.appendingPathComponent("engine-input-\(index)-v2.wav")
        if !FileManager.default.fileExists(atPath: url.path) {
            try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", source, "-ac", "2", "-c:a", "pcm_s16le", url.path])
        }
        inputs.append(url)
    }
    let out = dir.appendingPathComponent("engine-out")
    try? FileManager.default.removeItem(at: out)
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: out) }
    var ours = Double.infinity, theirs = Double.infinity
    for run in 0..<max(1, repeats) {
        var t0 = DispatchTime.now().uptimeNanoseconds
        try renderBenchGraph(inputs, to: out.appendingPathComponent("ours-\(run).wav"))
        ours = min(ours, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
        t0 = DispatchTime.now().uptimeNanoseconds
        try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y"] + inputs.flatMap { ["-i", $0.path] } + [
            "-filter_complex", "[0]rubberband=tempo=2[a];[1]volume=0.5[b];[2]volume=0.5[c];"
                + "[a][b][c]amix=inputs=3:normalize=0:duration=longest",
            "-t", "\(EngineBench.seconds)", "-c:a", "pcm_f32le", out.appendingPathComponent("ffmpeg-\(run).wav").path])
        theirs = min(theirs, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
    }
    let label = "engine offline: 3 players + time-pitch, 60 s"
    print(label.padding(toLength: 44, withPad: " ", startingAt: 0)
          + String(format: "%7.3f s   %7.3f s   %5.2f×", ours, theirs, ours / theirs))
}

/// The graph, as an Apple program builds it, rendered offline in 4096-frame calls to a WAV file.
private func renderBenchGraph(_ inputs: [URL], to url: URL) throws {
    let engine = AVAudioEngine()
    let format = AVAudioFormat(standardFormatWithSampleRate: Double(EngineBench.rate), channels: 2)!
    let pitch = AVAudioUnitTimePitch()
    pitch.rate = 2
    engine.attach(pitch)
    var players: [AVAudioPlayerNode] = []
    for (index, input) in inputs.enumerated() {
        let file = try AVAudioFile(forReading: input)
        let player = AVAudioPlayerNode()
        engine.attach(player)
        if index == 0 {
            engine.connect(player, to: pitch, format: file.processingFormat)
            engine.connect(pitch, to: engine.mainMixerNode, format: file.processingFormat)
        } else {
            engine.connect(player, to: engine.mainMixerNode, format: file.processingFormat)
        }
        player.volume = 0.5
        player.scheduleFile(file, at: nil)
        players.append(player)
    }
    try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 4096)
    try engine.start()
    players.forEach { $0.play() }
    let output = try AVAudioFile(forWriting: url, settings: format.settings)
    let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: engine.manualRenderingMaximumFrameCount)!
    let total = AVAudioFramePosition(EngineBench.seconds * EngineBench.rate)
    while engine.manualRenderingSampleTime < total {
        let frames = AVAudioFrameCount(min(AVAudioFramePosition(buffer.frameCapacity), total - engine.manualRenderingSampleTime))
        guard try engine.renderOffline(frames, to: buffer) == .success else { break }
        try output.write(from: buffer)
    }
    engine.stop()
}
