// avtool: the command-line face of AV Foundation for Linux.
import ArgumentParser
import AVFoundation

@main
struct AVTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "avtool",
        abstract: "Inspect, convert and demonstrate media with AV Foundation for Linux.",
        version: "0.1.0",
        subcommands: [Demo.self, Bench.self, PixelFormats.self, Info.self, Thumbnails.self, Decode.self, Waveform.self,
                      WriterTool.self, Meta.self, Convert.self, Compose.self, Devices.self, Record.self, Scan.self, Play.self,
                      PlayAudio.self, RecordAudio.self, Say.self])
}
