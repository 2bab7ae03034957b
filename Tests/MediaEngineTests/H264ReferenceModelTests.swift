import Foundation
import Testing
@testable import MediaEngine

// H264ReferenceModel claims to replay FFmpeg 5.1's H.264 reference bookkeeping from slice headers
// alone. These tests hold it to that, picture by picture, against FFmpeg itself: decoding with
// `-debug mmco`, libavcodec prints its short- and long-term reference lists (h264_refs.c
// print_short_term/print_long_term) in ff_h264_build_ref_list, before each slice's reference
// lists are built, and at the end of ff_h264_execute_ref_pic_marking, after each reference
// picture's marking and after each frame_num gap filler's. The model, fed the same packets
// through H264SyntaxReader, must hold exactly the same lists at the same points: decoding every
// picture, with `-skip_frame bidir`, where reference B-pictures are dropped before any
// bookkeeping and FFmpeg fills the frame_num gaps they leave, and on raw streams with runs of
// reference pictures cut out (longer gaps, which FFmpeg shortens, and frame_num wrapping through
// a gap). H264SyntaxReader itself is checked against the `trace_headers` bitstream filter.

/// The streams the model is compared on: 4 s of moving test pattern at 30 fps, 320×240, a single
/// 120-frame GOP unless stated, each encoded another way with libx264 (on one thread, so the
/// bitstream is the same on every machine).
enum ReferenceModelClip: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `-preset veryfast` defaults: 3 B-frames, normal pyramid (the reference B carries MMCOs),
    /// ref=1; log2_max_frame_num 4, so frame_num wraps every 16 reference pictures.
    case veryfast
    case ref4Bframes3
    case strictPyramid
    case bframes8Ref6
    case ref16Bframes16
    /// weightp=2 with ref=3 over fades: x264 duplicates references for weighting, through
    /// ref_pic_list_modification (abs_diff_pic_num = max_pic_num).
    case weightp
    case slices4
    case noBframes
    /// The veryfast clip remuxed to MPEG-TS (Annex B packets, parameter sets in band).
    case mpegTS

    var testDescription: String {
        switch self {
        case .veryfast: "veryfast defaults (bframes=3, b-pyramid=normal, ref=1, frame_num wraps at 16)"
        case .ref4Bframes3: "ref=4, bframes=3"
        case .strictPyramid: "b-pyramid=strict"
        case .bframes8Ref6: "bframes=8, b-adapt=2, ref=6"
        case .ref16Bframes16: "keyint=30, ref=16, bframes=16"
        case .weightp: "weightp=2, ref=3 over fades (duplicated references)"
        case .slices4: "slices=4"
        case .noBframes: "bframes=0, ref=3 (POC type 2)"
        case .mpegTS: "veryfast defaults remuxed to MPEG-TS"
        }
    }

    /// Whether the clip has reference pictures made only of B slices (so `-skip_frame bidir`
    /// leaves frame_num gaps).
    var hasReferenceB: Bool {
        switch self {
        case .noBframes: false
        default: true
        }
    }

    /// The file, made on first use (once per test process); nil when the installed ffmpeg
    /// cannot make it.
    fileprivate var url: URL? { ReferenceModelFixtures.files[self] }

    /// The ffmpeg arguments that make the clip (everything but the output path).
    fileprivate var ffmpegArguments: [String] {
        let source = "testsrc2=s=320x240:r=30:d=4"
        let fades = "\(source),fade=t=in:st=0:d=1.5,fade=t=out:st=2.5:d=1.5"
        let gop = "keyint=120:min-keyint=120:scenecut=0"
        func x264(_ params: String, input: String = source) -> [String] {
            ["-f", "lavfi", "-i", input, "-c:v", "libx264", "-preset", "veryfast", "-threads", "1",
             "-pix_fmt", "yuv420p", "-x264-params", params, "-f", "mp4"]
        }
        switch self {
        case .veryfast: return x264(gop)
        case .ref4Bframes3: return x264("\(gop):ref=4:bframes=3")
        case .strictPyramid: return x264("\(gop):b-pyramid=strict")
        case .bframes8Ref6: return x264("\(gop):bframes=8:b-adapt=2:ref=6")
        case .ref16Bframes16: return x264("keyint=30:min-keyint=30:scenecut=0:ref=16:bframes=16")
        case .weightp: return x264("\(gop):weightp=2:ref=3", input: fades)
        case .slices4: return x264("\(gop):slices=4")
        case .noBframes: return x264("\(gop):bframes=0:ref=3")
        case .mpegTS: return []  // made from .veryfast
        }
    }
}

/// Makes the clips once per test process, in a temporary directory, and runs the ffmpeg CLI.
fileprivate enum ReferenceModelFixtures {
    static let directory: URL = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("refmodel-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }()

    /// Every clip that could be made, made on first use, all encoders running at once (the
    /// tests block on ffmpeg runs; one encode at a time would leave cores idle).
    static let files: [ReferenceModelClip: URL] = {
        var running: [(clip: ReferenceModelClip, url: URL, process: Process)] = []
        for clip in ReferenceModelClip.allCases where clip != .mpegTS {
            let url = directory.appendingPathComponent("\(clip.rawValue).mp4")
            if let process = start(["-v", "error"] + clip.ffmpegArguments + [url.path], stderr: FileHandle.nullDevice) {
                running.append((clip, url, process))
            }
        }
        var files: [ReferenceModelClip: URL] = [:]
        for (clip, url, process) in running {
            process.waitUntilExit()
            if process.terminationStatus == 0, isNonEmpty(url) { files[clip] = url }
        }
        if let source = files[.veryfast] {
            let ts = directory.appendingPathComponent("\(ReferenceModelClip.mpegTS.rawValue).ts")
            if run(["-v", "error", "-i", source.path, "-c", "copy", "-f", "mpegts", ts.path])?.status == 0, isNonEmpty(ts) {
                files[.mpegTS] = ts
            }
        }
        return files
    }()

    private static func isNonEmpty(_ url: URL) -> Bool {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int ?? 0) > 0
    }

    /// Starts the ffmpeg CLI (`-nostdin -nostats -hide_banner -y` added), stderr to `stderr`.
    private static func start(_ args: [String], stderr: FileHandle) -> Process? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-nostdin", "-nostats", "-hide_banner", "-y"] + args
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = stderr
        do { try p.run() } catch { return nil }
        return p
    }

    /// Runs the ffmpeg CLI; its exit status and what it wrote to stderr (through a file, so a
    /// long log cannot block it). Nil when it could not be started.
    static func run(_ args: [String]) -> (status: Int32, log: [UInt8])? {
        let logURL = directory.appendingPathComponent("\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: logURL.path, contents: nil),
              let log = try? FileHandle(forWritingTo: logURL) else { return nil }
        defer { try? FileManager.default.removeItem(at: logURL) }
        let p = start(args, stderr: log)
        p?.waitUntilExit()
        try? log.close()
        guard let p, let data = FileManager.default.contents(atPath: logURL.path) else { return nil }
        return (p.terminationStatus, [UInt8](data))
    }
}

/// One reference picture as FFmpeg's `-debug mmco` lists print it (and as the model lists it).
fileprivate struct ListedReference: Equatable, CustomStringConvertible {
    var frameNum: Int
    /// nil: the model knows no POC (FFmpeg always prints one).
    var poc: Int32?

    var description: String { "fn:\(frameNum) poc:\(poc.map { String($0) } ?? "?")" }
}

/// One print of FFmpeg's reference lists.
fileprivate struct DPBPrint {
    enum Kind: Equatable, CustomStringConvertible {
        /// ff_h264_build_ref_list: before a slice's reference lists are built.
        case listBuild
        /// ff_h264_execute_ref_pic_marking, for a picture from the stream.
        case marking
        /// ff_h264_execute_ref_pic_marking, for a frame_num gap filler (h264_field_start).
        case gapFiller

        var description: String {
            switch self {
            case .listBuild: "before building a slice's lists"
            case .marking: "after the picture's marking"
            case .gapFiller: "after a gap filler's marking"
            }
        }
    }

    var kind: Kind
    var short: [ListedReference] = []
    var long: [Int: ListedReference] = [:]
}

/// How FFmpeg's decoder and the model are compared.
fileprivate enum DecodeMode: String {
    /// Every picture decoded.
    case all
    /// `-skip_frame bidir`: non-reference pictures and all-B pictures dropped before any
    /// reference bookkeeping.
    case skipBidir

    /// Whether FFmpeg decodes (so the model is fed) `picture` in this mode.
    func decodes(_ picture: H264CodedPicture) -> Bool {
        self == .all || (picture.isReference && !picture.isAllB)
    }
}

@Suite("H264ReferenceModel against FFmpeg")
struct H264ReferenceModelTests {
    // MARK: Fixtures and FFmpeg's output

    private static func clipURL(_ clip: ReferenceModelClip) throws -> URL {
        guard let url = clip.url else {
            try Test.cancel("the installed ffmpeg/libx264 cannot make the \(clip.testDescription) clip")
        }
        return url
    }

    /// The clip's video packets in decode order, with what H264SyntaxReader reads in them.
    private static func packets(_ url: URL) throws -> [(bytes: [UInt8], picture: H264CodedPicture)] {
        let demuxer = try Demuxer(url: url)
        let video = try #require(demuxer.streams.first { $0.kind == .video })
        demuxer.selectStreams([video.index])
        var reader = try #require(H264SyntaxReader(extradata: [UInt8](video.extradata)))
        var packets: [(bytes: [UInt8], picture: H264CodedPicture)] = []
        while let packet = try demuxer.readPacket() {
            guard packet.streamIndex == video.index else { continue }
            let index = packets.count
            do {
                packets.append(try packet.withUnsafeBytes { (Array($0), try reader.picture(in: $0)) })
            } catch {
                Issue.record("packet \(index): H264SyntaxReader cannot read it")
                throw error
            }
        }
        return packets
    }

    /// The clip's video packets in decode order, read by H264SyntaxReader.
    private static func pictures(_ url: URL) throws -> [H264CodedPicture] {
        try packets(url).map(\.picture)
    }

    /// The lines of an FFmpeg log written by the busiest context named `name` (the one with the
    /// most lines starting with `marker`: the decoder that decoded the file, not
    /// find_stream_info's probe decoder), each without its `[name @ 0x…] ` prefix. Works on
    /// bytes: the logs are long and the tests are built without optimisation.
    private static func contextLines(_ log: [UInt8], name: String, marker: String) -> [String] {
        let prefix = Array("[\(name) @ ".utf8), markerBytes = Array(marker.utf8)
        var byContext: [[UInt8]: [String]] = [:]
        var markerCount: [[UInt8]: Int] = [:]
        log.withUnsafeBufferPointer { log in
            func starts(_ bytes: [UInt8], at start: Int, before end: Int) -> Bool {
                end - start >= bytes.count && bytes.indices.allSatisfy { log[start + $0] == bytes[$0] }
            }
            var start = 0
            while start < log.count {
                var end = start
                while end < log.count && log[end] != 10 && log[end] != 13 { end += 1 }
                defer { start = end + 1 }
                guard starts(prefix, at: start, before: end) else { continue }
                var close = start + prefix.count
                while close < end && log[close] != UInt8(ascii: "]") { close += 1 }
                guard close < end else { continue }
                let context = Array(log[start + prefix.count ..< close])
                var text = close + 1
                if text < end && log[text] == UInt8(ascii: " ") { text += 1 }
                byContext[context, default: []].append(String(decoding: UnsafeBufferPointer(rebasing: log[text ..< end]), as: UTF8.self))
                if starts(markerBytes, at: text, before: end) { markerCount[context, default: 0] += 1 }
            }
        }
        guard let busiest = markerCount.max(by: { $0.value < $1.value })?.key else { return [] }
        return byContext[busiest] ?? []
    }

    /// The words of a log line (split at spaces).
    private static func words(_ line: String) -> [Substring] {
        line.utf8.split(separator: UInt8(ascii: " ")).map { Substring($0) }
    }

    /// `i fn:F poc:P 0x…` → (i, F, P).
    private static func listedEntry(_ line: String) -> (index: Int, reference: ListedReference)? {
        guard let first = line.utf8.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return nil }
        let parts = words(line)
        guard parts.count >= 3, let index = Int(parts[0]), parts[1].hasPrefix("fn:"), parts[2].hasPrefix("poc:"),
              let frameNum = Int(parts[1].dropFirst(3)), let poc = Int32(parts[2].dropFirst(4)) else { return nil }
        return (index, ListedReference(frameNum: frameNum, poc: poc))
    }

    /// Decodes `url` with FFmpeg (one thread, `-debug mmco`, and the input options `options`)
    /// and returns its list prints in order.
    private static func dpbPrints(_ url: URL, options: [String]) throws -> [DPBPrint] {
        let run = try #require(ReferenceModelFixtures.run(["-loglevel", "repeat+debug", "-threads", "1", "-debug", "mmco"]
                                                 + options + ["-i", url.path, "-f", "null", "-"]))
        try #require(run.status == 0, "ffmpeg failed to decode \(url.lastPathComponent)")
        var prints: [DPBPrint] = []
        var open: DPBPrint?
        var inLong = false
        var markingPending = false, gapPending = false
        func close() {
            if let p = open { prints.append(p) }
            open = nil
        }
        for line in contextLines(run.log, name: "h264", marker: "short term list:") {
            if line.hasPrefix("short term list:") {
                close()
                let kind: DPBPrint.Kind = markingPending ? (gapPending ? .gapFiller : .marking) : .listBuild
                if markingPending { gapPending = false }
                markingPending = false
                open = DPBPrint(kind: kind)
                inLong = false
            } else if line.hasPrefix("long term list:"), open != nil {
                inLong = true
            } else if open != nil, let (index, reference) = listedEntry(line) {
                if inLong {
                    open!.long[index] = reference
                } else {
                    #expect(index == open!.short.count, "short-term entries out of order: \(line)")
                    open!.short.append(reference)
                }
            } else {
                close()
                // What ff_h264_execute_ref_pic_marking logs before its print, and h264_field_start
                // before each gap filler.
                if line.hasPrefix("no mmco here") || line.hasPrefix("mmco:") { markingPending = true }
                if line.hasPrefix("Frame num gap ") { gapPending = true }
            }
        }
        close()
        return prints
    }

    // MARK: Replaying the model

    /// What one replay compared.
    private struct Replay {
        var picturesFed = 0
        var listBuildsCompared = 0
        var markingsCompared = 0
        var gapFillers = 0
        var frameNumWrapped = false
    }

    private static func describe(_ list: [ListedReference]) -> String {
        "[" + list.map(\.description).joined(separator: ", ") + "]"
    }

    private static func describe(_ list: [Int: ListedReference]) -> String {
        "[" + list.keys.sorted().map { "\($0): \(list[$0]!)" }.joined(separator: ", ") + "]"
    }

    /// Feeds the model the pictures FFmpeg decodes in `mode` and compares every list print.
    /// Records an issue (and stops) at the first difference.
    private static func replay(_ clip: ReferenceModelClip, mode: DecodeMode) throws -> Replay {
        let url = try clipURL(clip)
        let pictures = try pictures(url)
        let prints = try dpbPrints(url, options: mode == .skipBidir ? ["-skip_frame", "bidir"] : [])
        let fed = pictures.enumerated().filter { mode.decodes($0.element) }.map { ($0.offset, $0.element) }
        return try replay(fed, against: prints, label: "\(clip.rawValue), \(mode.rawValue)")
    }

    /// Feeds the model `fed` (what FFmpeg decoded, in order, by decode index in the clip) and
    /// compares every list print. Records an issue (and stops) at the first difference.
    private static func replay(_ fed: [(decodeIndex: Int, picture: H264CodedPicture)], against prints: [DPBPrint],
                               label: String) throws -> Replay {
        try #require(!prints.isEmpty, "ffmpeg printed no reference lists (is -debug mmco logged at this level?)")
        var model = H264ReferenceModel()
        var replay = Replay()
        var cursor = 0
        var lastFrameNum: Int?

        /// Compares print `cursor` (of `kind`) with the model's lists; false on a difference.
        func check(_ kind: DPBPrint.Kind, _ lists: H264ReferenceModel, decodeIndex: Int, picture: H264CodedPicture) -> Bool {
            let at = "\(label): packet \(decodeIndex) (frame_num \(picture.slices[0].frameNum), "
                + "\(picture.isIDR ? "IDR" : "\(picture.slices[0].kind)"), nal_ref_idc \(picture.nalRefIdc)), \(kind)"
            guard cursor < prints.count else {
                Issue.record("\(at): FFmpeg printed no more lists (\(prints.count) prints)")
                return false
            }
            let printed = prints[cursor]
            guard printed.kind == kind else {
                Issue.record("\(at): FFmpeg's print #\(cursor) is one \(printed.kind): \(describe(printed.short))")
                return false
            }
            let short = lists.shortTermReferences.map { ListedReference(frameNum: $0.frameNum, poc: $0.poc) }
            let long = lists.longTermReferences.mapValues { ListedReference(frameNum: $0.frameNum, poc: $0.poc) }
            guard short == printed.short, long == printed.long else {
                Issue.record("""
                    \(at), print #\(cursor): the model's lists differ from FFmpeg's
                      FFmpeg short: \(describe(printed.short))
                      model  short: \(describe(short))
                      FFmpeg long:  \(describe(printed.long))
                      model  long:  \(describe(long))
                    """)
                return false
            }
            cursor += 1
            return true
        }

        for (decodeIndex, picture) in fed {
            try #require(Set(picture.slices.map(\.kind)).count == 1, "\(label): packet \(decodeIndex) mixes slice types")
            replay.picturesFed += 1
            if let last = lastFrameNum, picture.slices[0].frameNum < last, !picture.isIDR { replay.frameNumWrapped = true }
            lastFrameNum = picture.slices[0].frameNum
            // FFmpeg's gap fillers, made in h264_field_start before the picture. The model makes
            // them inside decode, so only their result can be compared (in the prints that
            // follow); a filler's own print shows a stale POC (the recycled DPB slot's: the copy's
            // POC is set after marking). Their frame_nums must run up to the picture's.
            var fillers: [Int] = []
            while cursor < prints.count && prints[cursor].kind == .gapFiller {
                fillers.append(prints[cursor].short.first?.frameNum ?? -1)
                cursor += 1
            }
            replay.gapFillers += fillers.count
            let maxFrameNum = 1 << picture.sps.log2MaxFrameNum
            let expectedFillers = fillers.indices.map {
                (picture.slices[0].frameNum - fillers.count + $0 + maxFrameNum) % maxFrameNum
            }
            if fillers != expectedFillers {
                Issue.record("\(label): packet \(decodeIndex): FFmpeg's gap fillers have frame_nums \(fillers)")
            }
            // The lists each slice is built from: the state after gap filling, before marking —
            // what the model holds after decoding the picture as a non-reference one.
            var probe = model
            var unmarked = picture
            unmarked.nalRefIdc = 0
            _ = try probe.decode(unmarked, decodeIndex: decodeIndex)
            for _ in picture.slices {
                guard check(.listBuild, probe, decodeIndex: decodeIndex, picture: picture) else { return replay }
                replay.listBuildsCompared += 1
            }
            _ = try model.decode(picture, decodeIndex: decodeIndex)
            if picture.isReference {
                guard check(.marking, model, decodeIndex: decodeIndex, picture: picture) else { return replay }
                replay.markingsCompared += 1
            }
        }
        #expect(cursor == prints.count, "\(label): FFmpeg printed \(prints.count - cursor) lists after the last picture")
        return replay
    }

    // MARK: Tests

    @Test("every reference list FFmpeg prints matches the model, every picture decoded",
          arguments: ReferenceModelClip.allCases)
    func everyPicture(_ clip: ReferenceModelClip) throws {
        let replay = try Self.replay(clip, mode: .all)
        #expect(replay.markingsCompared > 40, "too few reference pictures compared: \(replay.markingsCompared)")
        #expect(replay.gapFillers == 0, "FFmpeg filled frame_num gaps in a complete stream")
        if clip == .veryfast { #expect(replay.frameNumWrapped, "frame_num never wrapped") }
    }

    @Test("every reference list FFmpeg prints matches the model under -skip_frame bidir, gap fillers included",
          arguments: ReferenceModelClip.allCases)
    func skippingBidirectional(_ clip: ReferenceModelClip) throws {
        let replay = try Self.replay(clip, mode: .skipBidir)
        #expect(replay.markingsCompared > 20, "too few reference pictures compared: \(replay.markingsCompared)")
        if clip.hasReferenceB {
            #expect(replay.gapFillers > 0, "no reference B-picture was skipped, so nothing was tested")
        }
    }

    @Test("the fixtures have what they are there for", arguments: ReferenceModelClip.allCases)
    func fixtures(_ clip: ReferenceModelClip) throws {
        let pictures = try Self.pictures(try Self.clipURL(clip))
        let sps = try #require(pictures.first?.sps)
        #expect(pictures.first?.isIDR == true)
        let referenceBs = pictures.filter { $0.isReference && $0.isAllB }
        #expect(referenceBs.isEmpty != clip.hasReferenceB)
        switch clip {
        case .veryfast, .mpegTS:
            // frame_num wraps at 16; the reference Bs end their own references with MMCOs.
            #expect(sps.log2MaxFrameNum == 4)
            #expect(referenceBs.contains { $0.slices[0].explicitMarking && !$0.slices[0].memoryOperations.isEmpty })
        case .ref16Bframes16:
            #expect(sps.refFrameCount == 16)
            #expect(pictures.filter(\.isIDR).count == 4)
        case .bframes8Ref6:
            #expect(sps.refFrameCount >= 6)
        case .slices4:
            #expect(pictures.allSatisfy { $0.slices.count == 4 })
        case .noBframes:
            #expect(sps.pocType == 2)
        default:
            break
        }
    }

    /// Reference pictures cut out of the veryfast stream, run by run (each run: that many
    /// consecutive reference pictures, with the non-reference pictures among them).
    static let cuts: [[Int]] = [[1, 2, 3, 4], [5, 8], [15], [16], [20]]

    @Test("the model matches FFmpeg on streams with reference pictures cut out: frame_num gaps of any length",
          arguments: cuts)
    func cutStreams(_ runs: [Int]) throws {
        // MPEG-TS packets are Annex B with the parameter sets in band: kept packets, concatenated,
        // are a raw H.264 stream.
        let packets = try Self.packets(try Self.clipURL(.mpegTS))
        let maxFrameNum = 1 << (try #require(packets.first?.picture.sps.log2MaxFrameNum))
        var keep = [Bool](repeating: true, count: packets.count)
        var referencesSeen = 0, index = 0
        for run in runs {
            // Start after eight more kept reference pictures.
            let start = referencesSeen + 8
            while index < packets.count && referencesSeen < start {
                if packets[index].picture.isReference { referencesSeen += 1 }
                index += 1
            }
            var cut = 0
            while index < packets.count && cut < run {
                if packets[index].picture.isReference { cut += 1 }
                keep[index] = false
                index += 1
            }
            try #require(cut == run, "the clip is too short for cuts \(runs)")
        }
        var stream: [UInt8] = []
        var fed: [(decodeIndex: Int, picture: H264CodedPicture)] = []
        for (i, packet) in packets.enumerated() where keep[i] {
            stream += packet.bytes
            fed.append((i, packet.picture))
        }
        let url = ReferenceModelFixtures.directory.appendingPathComponent("cut-\(runs.map(String.init).joined(separator: "-")).h264")
        try Data(stream).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let prints = try Self.dpbPrints(url, options: ["-f", "h264"])
        let replay = try Self.replay(fed, against: prints, label: "cuts \(runs)")
        #expect(replay.picturesFed == fed.count)
        // frame_num counts modulo max_frame_num, and a non-reference picture takes the number
        // after the previous reference picture's: a cut may leave no gap FFmpeg can see.
        var visibleGap = false
        for (a, b) in zip(fed, fed.dropFirst()) where !b.picture.isIDR {
            let step = (b.picture.slices[0].frameNum - a.picture.slices[0].frameNum + maxFrameNum) % maxFrameNum
            if step > 1 { visibleGap = true }
        }
        #expect(visibleGap == (replay.gapFillers > 0))
        if runs.contains(where: { $0 < maxFrameNum - 1 }) { #expect(visibleGap) }
    }

    // MARK: The syntax reader against trace_headers

    /// One slice header as the tests compare it.
    private struct SliceSummary: Equatable, CustomStringConvertible {
        var nalType = 0
        var nalRefIdc = 0
        var firstMb = 0
        var kind = H264SliceHeader.Kind.i
        var frameNum = 0
        var pocLsb = 0
        var refCount = [0, 0]
        var modifications: [[[Int]]] = [[], []]
        var explicitMarking = false
        var memoryOperations: [[Int]] = []

        var description: String {
            "nal \(nalType)/\(nalRefIdc) mb \(firstMb) \(kind) fn \(frameNum) poc_lsb \(pocLsb) refs \(refCount) "
                + "mods \(modifications) explicit \(explicitMarking) mmco \(memoryOperations)"
        }
    }

    private static func summary(_ picture: H264CodedPicture, _ slice: H264SliceHeader) -> SliceSummary {
        SliceSummary(nalType: picture.isIDR ? 5 : 1, nalRefIdc: picture.nalRefIdc, firstMb: slice.firstMb, kind: slice.kind,
                     frameNum: slice.frameNum, pocLsb: slice.pocLsb, refCount: slice.refCount,
                     modifications: slice.modifications.map { $0.map { [$0.op, $0.value] } },
                     explicitMarking: slice.explicitMarking,
                     memoryOperations: slice.memoryOperations.map { [$0.opcode, $0.shortPicNum, $0.longArg] })
    }

    /// The slice headers of each packet as `trace_headers` prints them, summarised the way
    /// FFmpeg's decoder reads them (h264_slice.c h264_slice_header_parse, h264_parse.c
    /// ff_h264_parse_ref_count, h264_refs.c ff_h264_decode_ref_pic_marking).
    private static func tracedSlices(_ url: URL) throws -> [[SliceSummary]] {
        let run = try #require(ReferenceModelFixtures.run(["-loglevel", "repeat+debug", "-i", url.path, "-map", "0:v:0",
                                                         "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"]))
        try #require(run.status == 0, "ffmpeg failed to trace \(url.lastPathComponent)")
        typealias Fields = [(name: String, value: Int)]
        var packets: [[Fields]] = []
        var section: String?
        var fields: Fields = []
        var spsLog2MaxFrameNum: [Int: Int] = [:]
        var ppsDefaults: [Int: (sps: Int, refCount: [Int])] = [:]
        func value(_ name: String, in fields: Fields) -> Int? { fields.first { $0.name == name }?.value }
        func close() {
            defer { section = nil; fields = [] }
            switch section {
            case "Sequence Parameter Set":
                if let id = value("seq_parameter_set_id", in: fields), let l = value("log2_max_frame_num_minus4", in: fields) {
                    spsLog2MaxFrameNum[id] = l + 4
                }
            case "Picture Parameter Set":
                if let id = value("pic_parameter_set_id", in: fields), let sps = value("seq_parameter_set_id", in: fields),
                   let l0 = value("num_ref_idx_l0_default_active_minus1", in: fields),
                   let l1 = value("num_ref_idx_l1_default_active_minus1", in: fields) {
                    ppsDefaults[id] = (sps, [l0 + 1, l1 + 1])
                }
            case "Slice Header":
                if !packets.isEmpty { packets[packets.count - 1].append(fields) }
            default:
                break
            }
        }
        for line in contextLines(run.log, name: "trace_headers", marker: "Slice Header") {
            if let first = line.utf8.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") {
                // `bit-position name bits = value`; array subscripts dropped from the name.
                let parts = words(line)
                guard section != nil, parts.count >= 5, parts[parts.count - 2] == "=", let v = Int(parts[parts.count - 1])
                else { continue }
                var name = String(parts[1])
                if let bracket = name.firstIndex(of: "[") { name = String(name[..<bracket]) }
                fields.append((name, v))
                continue
            }
            close()
            if line.hasPrefix("Packet: ") {
                packets.append([])
            } else {
                section = line
            }
        }
        close()

        return try packets.map { slices in
            try slices.map { f in
                var s = SliceSummary()
                s.nalType = try #require(value("nal_unit_type", in: f))
                s.nalRefIdc = try #require(value("nal_ref_idc", in: f))
                s.firstMb = try #require(value("first_mb_in_slice", in: f))
                let sliceType = try #require(value("slice_type", in: f))
                s.kind = [H264SliceHeader.Kind.p, .b, .i, .p, .i][sliceType % 5]
                s.frameNum = try #require(value("frame_num", in: f))
                s.pocLsb = value("pic_order_cnt_lsb", in: f) ?? 0
                let ppsID = try #require(value("pic_parameter_set_id", in: f))
                let pps = try #require(ppsDefaults[ppsID])
                let log2MaxFrameNum = try #require(spsLog2MaxFrameNum[pps.sps])
                let maxFrameNum = 1 << log2MaxFrameNum
                if s.kind != .i {
                    s.refCount = pps.refCount
                    if value("num_ref_idx_active_override_flag", in: f) == 1 {
                        s.refCount[0] = try #require(value("num_ref_idx_l0_active_minus1", in: f)) + 1
                        if s.kind == .b {
                            s.refCount[1] = try #require(value("num_ref_idx_l1_active_minus1", in: f)) + 1
                        } else {
                            s.refCount[1] = 1
                        }
                    }
                }
                // Walk the fields in order: list modifications, then the marking.
                var list = 0
                var pendingModification: Int?
                var operation: [Int]?
                func finishOperation() {
                    if let op = operation { s.memoryOperations.append(op) }
                    operation = nil
                }
                for (name, v) in f {
                    switch name {
                    case "ref_pic_list_modification_flag_l0": list = 0
                    case "ref_pic_list_modification_flag_l1": list = 1
                    case "modification_of_pic_nums_idc":
                        pendingModification = v == 3 ? nil : v
                    case "abs_diff_pic_num_minus1" where pendingModification != nil,
                         "long_term_pic_num" where pendingModification != nil:
                        s.modifications[list].append([pendingModification!, v])
                        pendingModification = nil
                    case "long_term_reference_flag":
                        s.explicitMarking = true
                        if v == 1 { s.memoryOperations = [[6, 0, 0]] }
                    case "adaptive_ref_pic_marking_mode_flag":
                        s.explicitMarking = v == 1
                    case "memory_management_control_operation":
                        finishOperation()
                        if v != 0 { operation = [v, 0, 0] }
                    case "difference_of_pic_nums_minus1" where operation != nil:
                        operation![1] = (s.frameNum - v - 1) & (maxFrameNum - 1)
                    case "long_term_pic_num", "long_term_frame_idx", "max_long_term_frame_idx_plus1":
                        if operation != nil { operation![2] = v }
                    default:
                        break
                    }
                }
                finishOperation()
                return s
            }
        }
    }

    @Test("H264SyntaxReader reads every slice header as trace_headers shows it",
          arguments: [ReferenceModelClip.veryfast, .ref16Bframes16, .weightp, .slices4, .mpegTS])
    func syntaxReaderMatchesTraceHeaders(_ clip: ReferenceModelClip) throws {
        let url = try Self.clipURL(clip)
        let pictures = try Self.pictures(url)
        let traced = try Self.tracedSlices(url)
        try #require(traced.count == pictures.count, "trace_headers saw \(traced.count) packets, the demuxer \(pictures.count)")
        var slices = 0, modifications = 0, operations = 0, duplicates = 0
        for (index, (picture, expected)) in zip(pictures, traced).enumerated() {
            let read = picture.slices.map { Self.summary(picture, $0) }
            guard read == expected else {
                Issue.record("""
                    \(clip.rawValue), packet \(index): the reader's slice headers differ from trace_headers'
                      trace:  \(expected.map(\.description).joined(separator: "\n          "))
                      reader: \(read.map(\.description).joined(separator: "\n          "))
                    """)
                return
            }
            slices += read.count
            modifications += read.reduce(0) { $0 + $1.modifications.joined().count }
            operations += read.reduce(0) { $0 + $1.memoryOperations.count }
            // A modification by max_pic_num names the same picture again (x264's weighted duplicates).
            let maxPicNum = 1 << picture.sps.log2MaxFrameNum
            duplicates += read.reduce(0) { $0 + $1.modifications.joined().filter { $0[0] < 2 && $0[1] == maxPicNum - 1 }.count }
        }
        #expect(slices >= pictures.count)
        if clip == .veryfast || clip == .ref16Bframes16 || clip == .weightp {
            #expect(modifications > 0, "no list modification compared")
        }
        if clip == .veryfast { #expect(operations > 0, "no MMCO compared") }
        if clip == .weightp { #expect(duplicates > 0, "no duplicated reference compared") }
    }
}
