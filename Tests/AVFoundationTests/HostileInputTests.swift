// Hostile input never traps: mutants of small valid files (made here with the ffmpeg CLI) go
// through everything that reads a file — AVURLAsset loading, AVAssetImageGenerator, AVAssetReader
// (every sample of every track) and a passthrough export with new metadata — and every failure
// must be an AVFoundationErrorDomain error that says why, a failed export must leave nothing
// behind, and the input must not change. Each unmutated seed goes first and must pass every
// stage (proof the stages ran). The mutants come from HostileInputMutator (the engine
// scripts/fuzz.sh runs at larger counts through avtool).
//
// The mutants run in a child process (an exit test): a trap kills the child, not the suite, and
// the test reports the mutant it died on (its seed file and number reproduce it exactly:
// `scripts/fuzz.sh` or `HostileMutator.mutate(seed, mutantSeed: HostileMutator.mutantSeed(name, n))`).
// In-process rather than through avtool so that the public API's own errors are judged (domain,
// reason, leftover files) and a few hundred mutants fit in well under a minute: one child, not
// six process launches per mutant.
import AVFoundation
import Foundation
import MediaEngine
import Testing
import TestSupport

@Suite(.serialized) struct HostileInputTests {
    /// Mutants per seed file in the suite (scripts/fuzz.sh runs more).
    static let mutantsPerSeed = 80

    /// The seed files: MP4 (H.264 + AAC), fragmented MP4, MOV with an edit list (B-frames) and
    /// QuickTime metadata, M4A with iTunes tags and a cover, MP3 with ID3v2 and a cover — the same
    /// commands as scripts/fuzz.sh.
    static func makeSeeds() throws -> URL {
        let dir = try AssetFixtures.tempDirectory()
        let video = ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1", "-f", "lavfi", "-i", "sine=frequency=440:duration=1",
                     "-c:v", "libx264", "-g", "5", "-bf", "2", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "32k", "-shortest"]
        let cover = dir.appendingPathComponent("cover.png").path
        let commands: [[String]] = [
            video + [dir.appendingPathComponent("plain.mp4").path],
            video + ["-movflags", "frag_keyframe+empty_moov+default_base_moof", dir.appendingPathComponent("fragmented.mp4").path],
            video + ["-metadata", "title=Hostile", "-metadata", "artist=Fuzz", "-metadata", "comment=Mutant",
                     dir.appendingPathComponent("edited.mov").path],
            ["-f", "lavfi", "-i", "testsrc=size=16x16:rate=1:duration=1", "-frames:v", "1", cover],
            ["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-i", cover, "-map", "0", "-map", "1", "-c:a", "aac", "-b:a", "32k",
             "-c:v", "png", "-disposition:v", "attached_pic", "-metadata", "title=Hostile", "-metadata", "artist=Fuzz",
             "-metadata", "album=Seeds", "-metadata", "track=3/9", dir.appendingPathComponent("tagged.m4a").path],
            ["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-i", cover, "-map", "0", "-map", "1", "-c:a", "libmp3lame", "-b:a", "32k",
             "-c:v", "png", "-disposition:v", "attached_pic", "-id3v2_version", "3", "-metadata", "title=Hostile",
             "-metadata", "artist=Fuzz", "-metadata", "album=Seeds", dir.appendingPathComponent("tagged.mp3").path],
        ]
        for arguments in commands {
            let run = try AssetFixtures.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y"] + arguments)
            guard run.status == 0 else { throw HostileSeedError(command: arguments.joined(separator: " ")) }
        }
        try FileManager.default.removeItem(atPath: cover)
        return dir
    }

    struct HostileSeedError: Error, CustomStringConvertible {
        var command: String
        var description: String { "ffmpeg failed: \(command)" }
    }

    /// The seed files' names in `dir`, sorted.
    static func seedNames(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Runs the mutants `first ..< first + count` of every seed in `dir` in a child process and turns
    /// what it reports into issues: a death (trap) with the mutant it died on, and each problem.
    static func runInChild(seeds dir: String, first: Int, count: Int, hand: [String] = []) async {
        // The child writes its progress to a file line by line (a trap loses nothing written),
        // which the parent reads however the child ended.
        let log = HostileRun.logPath(seeds: dir)
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [dir, first, count, hand] in
            HostileRun.run(seeds: dir, first: first, count: count, hand: hand)
        }
        let lines = String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self).split(separator: "\n")
        for problem in lines where problem.hasPrefix("PROBLEM ") { Issue.record("\(problem)") }
        let ran = lines.filter { $0.hasPrefix("MUTANT ") }.count
        if !lines.contains("DONE") {
            // What the runtime printed as it died (the trap's message and the backtrace), so a
            // trap that does not come back on a rerun still says where it was.
            // swift-testing turns the backtracer off in exit-test children (SWIFT_BACKTRACE=enable=no
            // unless the parent sets it), so a trap without a message prints nothing there: the
            // child's own signal handler logs the stage it was in and the raw frames
            // (`addr2line -fe <binary> <offset>` names a frame of the test binary).
            let stderr = String(decoding: result?.standardErrorContent.suffix(12_000) ?? [], as: UTF8.self)
            let last = lines.lastIndex { $0.hasPrefix("MUTANT ") }
            let tail = last.map { lines[$0...].joined(separator: "\n") } ?? "before the first mutant"
            Issue.record("the child ended (a trap or a hang) on \(tail)\n\(stderr)")
        }
        #expect(ran == HostileRun.expectedCount(seeds: seedNames(dir).count, count: count, hand: hand.count), "\(ran) mutants ran")
        // The mutants are hostile: some of them must fail to load or read (else nothing was tested).
        let failed = lines.filter { $0.hasPrefix("FAILED ") }.count
        #expect(failed > 0, "no mutant failed anywhere")
    }

    @Test func mutatedFilesFailWithReasonsAndNeverTrap() async throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing; run scripts/setup.sh"); return }
        let seeds = try Self.makeSeeds()
        defer { try? FileManager.default.removeItem(at: seeds) }
        #expect(Self.seedNames(seeds.path).count == 5)
        await Self.runInChild(seeds: seeds.path, first: 0, count: Self.mutantsPerSeed)
    }

    /// The inputs that trapped before (issue 10), made exactly: a fragment whose decode time is
    /// near 2^63 (reader, export), a track box whose 64-bit size is near 2^64 (asset loading),
    /// edit-list and header times at the Int64 limits, timescale 1 with a huge fragment time.
    @Test func extremeTimesAndSizesAreErrors() async throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing; run scripts/setup.sh"); return }
        let seeds = try Self.makeSeeds()
        defer { try? FileManager.default.removeItem(at: seeds) }
        await Self.runInChild(seeds: seeds.path, first: 0, count: 0, hand: HostileRun.handMade.map(\.name))
    }

    /// avtool says why a file cannot be used: the failure reason, the underlying FFmpeg error and
    /// the code for a damaged or foreign file; for a file with no exportable track, which tracks —
    /// never a bare "Cannot Open" or an empty "(supported: )" list.
    @Test func avtoolSaysWhyAFileCannotBeUsed() throws {
        guard AssetFixtures.hasFFmpeg, let avtool = AssetWriterFaultTests.avtool else {
            Issue.record("ffmpeg or the avtool binary is missing; run scripts/setup.sh and swift build")
            return
        }
        let seeds = try Self.makeSeeds()
        defer { try? FileManager.default.removeItem(at: seeds) }
        let work = try AssetFixtures.tempDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let plain = try Data(contentsOf: seeds.appendingPathComponent("plain.mp4"))
        let tagged = [UInt8](try Data(contentsOf: seeds.appendingPathComponent("tagged.m4a")))
        let cut = work.appendingPathComponent("cut.mp4"), text = work.appendingPathComponent("text.mp4")
        let trackless = work.appendingPathComponent("trackless.m4a")
        try plain.prefix(plain.count / 2).write(to: cut)
        try Data("not a movie\n".utf8).write(to: text)
        // The mutant that used to print "(supported: )": its only track box is cut to 8 bytes.
        try Data(HostileMutator.mutate(tagged, mutantSeed: HostileMutator.mutantSeed("tagged", 23)).bytes).write(to: trackless)
        let cases: [(URL, [String])] = [(cut, ["-11829", "underlying: FFmpegErrorDomain", "damaged"]),
                                        (text, ["-11828", "underlying: FFmpegErrorDomain", "not a recognised media format"]),
                                        (trackless, ["track"])]
        for (file, says) in cases {
            let out = work.appendingPathComponent("out.mov").path
            let commands = [["info", file.path], ["meta", file.path], ["meta", file.path, "--set", "title=X", "-o", out],
                            ["thumbnails", file.path, "--count", "1", "-o", work.appendingPathComponent("thumbs").path],
                            ["convert", "-s", file.path, "-o", out, "-p", "PresetPassthrough", "--quiet"], ["decode", file.path]]
            for arguments in commands {
                let (status, message) = try Self.runCapturingErrors(avtool, arguments)
                if file == trackless && (arguments[0] == "info" || arguments[0] == "meta" && arguments.count == 2) { continue }
                #expect(status == 1, "\(arguments): exit \(status)")
                for phrase in says {
                    #expect(message.contains(phrase), "\(arguments): \(message)")
                }
                #expect(!message.contains("supported: )") && !message.contains("nothing)") && !message.hasSuffix("Cannot Open\n"),
                        "\(arguments): \(message)")
                #expect(!FileManager.default.fileExists(atPath: out), "\(arguments) left \(out)")
            }
        }
    }

    /// The export session's own error for a file it can write nothing from names the preset and
    /// says so, never an empty "(supported: )" list (what avtool used to print came from here).
    @Test func anExportWithNothingToWriteSaysSo() async throws {
        let seeds = try Self.makeSeeds()
        defer { try? FileManager.default.removeItem(at: seeds) }
        let work = try AssetFixtures.tempDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let tagged = [UInt8](try Data(contentsOf: seeds.appendingPathComponent("tagged.m4a")))
        let trackless = work.appendingPathComponent("trackless.m4a")
        try Data(HostileMutator.mutate(tagged, mutantSeed: HostileMutator.mutantSeed("tagged", 23)).bytes).write(to: trackless)
        let out = work.appendingPathComponent("out.mov")
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: trackless), presetName: AVAssetExportPresetPassthrough))
        do {
            try await session.export(to: out, as: .mov)
            Issue.record("an export from a file without tracks succeeded")
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? ""
            #expect(!reason.isEmpty, "\(error)")
            #expect(!reason.contains("supported: )"), "\(reason)")
        }
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// Runs `tool` and returns its exit status and standard error.
    static func runCapturingErrors(_ tool: URL, _ arguments: [String]) throws -> (Int32, String) {
        try TestTools.runText(tool.path, arguments, capture: .standardError)
    }

    /// The mutation engine is deterministic and structure-aware: the same seed gives the same
    /// bytes, it finds the boxes the mutations aim at, and its edits change the file.
    @Test func mutationEngineIsDeterministicAndFindsTheBoxes() throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing; run scripts/setup.sh"); return }
        let seeds = try Self.makeSeeds()
        defer { try? FileManager.default.removeItem(at: seeds) }
        let plain = [UInt8](try Data(contentsOf: seeds.appendingPathComponent("plain.mp4")))
        let types = Set(HostileMutator.boxes(plain).map(\.type))
        #expect(types.isSuperset(of: ["ftyp", "moov", "mvhd", "trak", "tkhd", "mdhd", "stts", "stsz", "stco", "stss", "ctts", "elst"]), "\(types)")
        let fragmented = [UInt8](try Data(contentsOf: seeds.appendingPathComponent("fragmented.mp4")))
        #expect(Set(HostileMutator.boxes(fragmented).map(\.type)).isSuperset(of: ["moof", "traf", "tfhd", "tfdt", "trun", "mvex"]))
        let mp3 = [UInt8](try Data(contentsOf: seeds.appendingPathComponent("tagged.mp3")))
        #expect(Set(HostileMutator.id3Frames(mp3).map { String(decoding: mp3[$0.offset ..< $0.offset + 4], as: UTF8.self) })
            .isSuperset(of: ["TIT2", "TPE1", "TALB", "APIC"]))
        let a = HostileMutator.mutate(plain, mutantSeed: HostileMutator.mutantSeed("plain", 7))
        let b = HostileMutator.mutate(plain, mutantSeed: HostileMutator.mutantSeed("plain", 7))
        #expect(a.bytes == b.bytes && a.description == b.description)
        let changed = (0 ..< 20).filter { HostileMutator.mutate(plain, mutantSeed: HostileMutator.mutantSeed("plain", UInt64($0))).bytes != plain }
        #expect(changed.count >= 18)
    }
}

/// The child's side: mutate, run every reading API on each mutant, log "MUTANT …" before each,
/// "FAILED …" for each failure judged, "PROBLEM …" for each broken rule and "DONE" at the end.
enum HostileRun {
    /// Hand-made mutants of the known traps: (name, seed file, edit).
    static let handMade: [(name: String, seed: String, edit: @Sendable (inout [UInt8]) -> Void)] = [
        ("tfdt-near-2^63", "fragmented.mp4", { setAll(&$0, "tfdt") { d, box in
            d[box.payload] = 1
            HostileMutator.write64(&d, box.payload + 4, 0x7FFF_FFFF_FFFF_FFF0)
        } }),
        ("tfdt-2^63+1", "fragmented.mp4", { setFirst(&$0, "tfdt") { d, box in
            d[box.payload] = 1
            HostileMutator.write64(&d, box.payload + 4, 0x8000_0000_0000_0001)
        } }),
        ("mdhd-timescale-1-tfdt-huge", "fragmented.mp4", { d in
            setAll(&d, "mdhd") { d, box in HostileMutator.write32(&d, box.payload + (d[box.payload] == 1 ? 20 : 12), 1) }
            setAll(&d, "tfdt") { d, box in
                d[box.payload] = 1
                HostileMutator.write64(&d, box.payload + 4, 0x7FFF_FFFF_FFFF_FF00)
            }
        }),
        ("mdhd-timescale-1-first-tfdt-2^63+1", "fragmented.mp4", { d in
            setAll(&d, "mdhd") { d, box in HostileMutator.write32(&d, box.payload + (d[box.payload] == 1 ? 20 : 12), 1) }
            setFirst(&d, "tfdt") { d, box in
                d[box.payload] = 1
                HostileMutator.write64(&d, box.payload + 4, 0x8000_0000_0000_0001)
            }
        }),
        ("trak-largesize-near-2^64", "plain.mp4", { setFirst(&$0, "trak") { d, box in
            HostileMutator.write32(&d, box.offset, 1)
            HostileMutator.write64(&d, box.offset + 8, 0xFFFF_FFFF_FFFF_FFF8)
        } }),
        ("moov-largesize-2^64-1", "edited.mov", { setFirst(&$0, "moov") { d, box in
            HostileMutator.write32(&d, box.offset, 1)
            HostileMutator.write64(&d, box.offset + 8, .max)
        } }),
        ("elst-media-time-min", "edited.mov", { setAll(&$0, "elst") { d, box in
            HostileMutator.write32(&d, box.payload + 8, 0xFFFF_FFFF)
            HostileMutator.write32(&d, box.payload + 12, 0x8000_0000)
        } }),
        ("elst-v1-extremes", "edited.mov", { setAll(&$0, "elst") { d, box in
            // Version 1 read over a version 0 table: 64-bit durations and times from its bytes, then forced to the limits.
            d[box.payload] = 1
            HostileMutator.write64(&d, box.payload + 8, 0x7FFF_FFFF_FFFF_FFFF)
            HostileMutator.write64(&d, box.payload + 16, 0x7FFF_FFFF_FFFF_FFFE)
        } }),
        ("mdhd-duration-2^63", "plain.mp4", { setAll(&$0, "mdhd") { d, box in
            d[box.payload] = 1
            HostileMutator.write32(&d, box.payload + 20, 1)
            HostileMutator.write64(&d, box.payload + 24, 0x8000_0000_0000_0000)
        } }),
        ("mvhd-timescale-0", "plain.mp4", { setFirst(&$0, "mvhd") { d, box in HostileMutator.write32(&d, box.payload + 12, 0) } }),
        ("mdhd-timescale-max", "edited.mov", { setAll(&$0, "mdhd") { d, box in HostileMutator.write32(&d, box.payload + 12, 0xFFFF_FFFF) } }),
        ("stts-delta-max", "plain.mp4", { setAll(&$0, "stts") { d, box in
            HostileMutator.write32(&d, box.payload + 12, 0xFFFF_FFFF)
        } }),
        ("ctts-offsets-extreme", "plain.mp4", { setAll(&$0, "ctts") { d, box in
            d[box.payload] = 1
            HostileMutator.write32(&d, box.payload + 12, 0x8000_0000)
            HostileMutator.write32(&d, box.payload + 20, 0x7FFF_FFFF)
        } }),
        ("counts-max", "plain.mp4", { d in
            for type in ["stts", "stss", "stco", "ctts", "stsc"] { setAll(&d, type) { d, box in HostileMutator.write32(&d, box.payload + 4, 0xFFFF_FFFF) } }
            setAll(&d, "stsz") { d, box in HostileMutator.write32(&d, box.payload + 8, 0xFFFF_FFFF) }
        }),
        ("trun-count-max", "fragmented.mp4", { setAll(&$0, "trun") { d, box in HostileMutator.write32(&d, box.payload + 4, 0xFFFF_FFFF) } }),
        ("id3-sizes-max", "tagged.mp3", { d in
            HostileMutator.write32(&d, 6, 0x7F7F_7F7F)
            for frame in HostileMutator.id3Frames(d) { HostileMutator.write32(&d, frame.offset + 4, 0xFFFF_FFFF) }
        }),
        ("ilst-data-size-max", "tagged.m4a", { setAll(&$0, "data") { d, box in HostileMutator.write32(&d, box.offset, 0xFFFF_FFFF) } }),
    ]

    static func setAll(_ data: inout [UInt8], _ type: String, _ edit: (inout [UInt8], HostileBox) -> Void) {
        for box in HostileMutator.boxes(data) where box.type == type { edit(&data, box) }
    }

    static func setFirst(_ data: inout [UInt8], _ type: String, _ edit: (inout [UInt8], HostileBox) -> Void) {
        if let box = HostileMutator.boxes(data).first(where: { $0.type == type }) { edit(&data, box) }
    }

    /// Where the child logs its progress (beside the seeds, hidden from `seedNames`).
    static func logPath(seeds dir: String) -> String { dir + "/.hostile-log" }

    static func expectedCount(seeds: Int, count: Int, hand: Int) -> Int { seeds * (count + 1) + hand }

    /// The progress log (opened by `run`), written with one unbuffered write per line.
    nonisolated(unsafe) static var logHandle: FileHandle?

    static func say(_ line: String) {
        (logHandle ?? FileHandle.standardError).write(Data((line + "\n").utf8))
    }

    /// Runs the mutants; returns normally unless something trapped (which ends the process).
    static func run(seeds dir: String, first: Int, count: Int, hand: [String]) {
        logHandle = FileHandle(forWritingAtPath: logPath(seeds: dir))
        if let logHandle { CrashRecorder.install(fileDescriptor: logHandle.fileDescriptor) }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let watchdog = Watchdog()
        var jobs: [(label: String, ext: String, bytes: [UInt8], control: Bool)] = []
        for name in HostileInputTests.seedNames(dir) {
            guard let seed = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: dir).appendingPathComponent(name))) else { continue }
            let base = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
            // The seed itself first: it must go through every stage (proof the stages ran).
            jobs.append(("seed \(name)", ext, seed, true))
            for n in first ..< first + count {
                let (bytes, edits) = HostileMutator.mutate(seed, mutantSeed: HostileMutator.mutantSeed(base, UInt64(n)))
                jobs.append(("\(base) #\(n) [\(edits)]", ext, bytes, false))
            }
            for made in handMade where made.seed == name && hand.contains(made.name) {
                var bytes = seed
                made.edit(&bytes)
                if bytes == seed { say("PROBLEM hand-made mutant \(made.name) changed nothing in \(name)") }
                jobs.append(("\(made.name) of \(name)", ext, bytes, false))
            }
        }
        for (index, job) in jobs.enumerated() {
            say("MUTANT \(job.label)")
            watchdog.arm(job.label)
            let file = work.appendingPathComponent("mutant-\(index).\(job.ext)")
            do { try Data(job.bytes).write(to: file) } catch { say("PROBLEM cannot write \(file.path)"); continue }
            let problems = Box()
            let stages = runAll(file, work: work, index: index, problems: problems)
            if job.control {
                if !stages.failures.isEmpty { problems.add("the unmutated seed failed: \(stages.failures)") }
                if stages.samples == 0 || !stages.exported || (job.ext != "m4a" && job.ext != "mp3" && stages.images == 0)
                    || stages.editsWritten == (job.ext == "mp3") {
                    problems.add("the unmutated seed did not go through every stage: \(stages)")
                }
            }
            if let after = try? [UInt8](Data(contentsOf: file)), after != job.bytes { problems.add("the input file changed") }
            for problem in problems.lines { say("PROBLEM \(job.label): \(problem)") }
            try? FileManager.default.removeItem(at: file)
        }
        watchdog.disarm()
        say("DONE")
    }

    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        func add(_ line: String) { lock.withLock { stored.append(line) } }
        var lines: [String] { lock.withLock { stored } }
    }

    /// Ends the child with a message when one mutant takes longer than a minute (a hang).
    final class Watchdog: @unchecked Sendable {
        private let lock = NSLock()
        private var label: String?
        private var generation = 0

        func arm(_ label: String) {
            let mine: Int = lock.withLock { generation += 1; self.label = label; return generation }
            DispatchQueue.global().asyncAfter(deadline: .now() + 60) { [self] in
                let hung: String? = lock.withLock { generation == mine ? self.label : nil }
                if let hung {
                    HostileRun.say("PROBLEM \(hung): no result after 60 s (a hang)")
                    exit(3)
                }
            }
        }

        func disarm() { lock.withLock { generation += 1; label = nil } }
    }

    /// Judges an error from any API: AVFoundationErrorDomain, a description and a reason.
    /// What one file went through.
    struct Stages: CustomStringConvertible {
        var images = 0, samples = 0, exported = false, editsWritten = false
        var failures: [String] = []
        var description: String {
            "\(images) images, \(samples) samples, exported \(exported), edits written \(editsWritten), failures \(failures)"
        }
    }

    static func judge(_ error: (any Error)?, _ what: String, _ problems: Box, _ stages: inout Stages) {
        stages.failures.append(what)
        say("FAILED \(what): \(error.map { "\(($0 as NSError).code) \(($0 as NSError).localizedFailureReason ?? "")" } ?? "no error")")
        guard let error else { problems.add("\(what) failed with no error"); return }
        let ns = error as NSError
        if ns.domain != AVFoundationErrorDomain { problems.add("\(what): error in \(ns.domain) \(ns.code), not AVFoundationErrorDomain: \(ns)") }
        if ns.localizedDescription.isEmpty { problems.add("\(what): empty localizedDescription (\(ns.code))") }
        if (ns.localizedFailureReason ?? "").isEmpty { problems.add("\(what): no failure reason (\(ns.domain) \(ns.code) \(ns.localizedDescription))") }
    }

    /// Waits for an async operation from this synchronous child.
    static func wait<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let box = ResultHolder<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.set(.success(try await operation())) } catch { box.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        return box.get()!
    }

    final class ResultHolder<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Result<T, any Error>?
        func set(_ v: Result<T, any Error>) { lock.withLock { value = v } }
        func get() -> Result<T, any Error>? { lock.withLock { value } }
    }

    /// The box reader and writer on a copy: every box of the movie walked, then track 1's edit
    /// list rewritten to [empty 0.2 s, media 0–0.5 s] — done, or refused with a BoxError or
    /// MediaError that says why; a done copy must load with those two segments.
    static func rewriteEditList(_ file: URL, work: URL, index: Int, problems: Box, _ stages: inout Stages) {
        let copy = work.appendingPathComponent("edits-\(index).\(file.pathExtension)")
        guard (try? FileManager.default.copyItem(at: file, to: copy)) != nil else { problems.add("cannot copy for the box stage"); return }
        defer { try? FileManager.default.removeItem(at: copy) }
        if let movie = try? MediaFile(url: copy).topLevelPayload("moov", maximum: 64 << 20) {
            let reader = ISOBoxReader(bytes: movie)
            func walk(_ box: ISOBox, depth: Int) -> Int {
                depth > 16 ? 0 : reader.children(of: box).reduce(1) { $0 + walk($1, depth: depth + 1) }
            }
            _ = walk(ISOBox(type: FourCC.code("moov"), payloadStart: 0, end: movie.count), depth: 0)
        }
        do {
            try EditListBox.rewrite(copy, edits: [1: [MovieEdit(duration: CMTime(value: 1, timescale: 5), mediaStart: nil),
                                                      MovieEdit(duration: CMTime(value: 1, timescale: 2), mediaStart: .zero)]])
            stages.editsWritten = true
        } catch let error as BoxError {
            if error.reason.isEmpty { problems.add("edit-list rewrite: a BoxError without a reason") }
            say("FAILED edit-list rewrite: \(error.reason)")
            return
        } catch let error as MediaError {
            say("FAILED edit-list rewrite: \(error.message)")
            return
        } catch {
            problems.add("edit-list rewrite: \(error) is neither a BoxError nor a MediaError")
            return
        }
        let asset = AVURLAsset(url: copy)
        if case .success(let tracks) = wait({ try await asset.load(.tracks) }),
           let track = tracks.first(where: { $0.trackID == 1 }), track.segments.map(\.isEmpty) != [true, false] {
            problems.add("the rewritten edit list reads back as \(track.segments.map(\.timeMapping))")
        }
    }

    static func runAll(_ file: URL, work: URL, index: Int, problems: Box) -> Stages {
        var stages = Stages()
        // Loading.
        say("STAGE loading")
        let asset = AVURLAsset(url: file)
        let loaded = wait { try await asset.load(.tracks, .duration, .metadata, .commonMetadata) }
        if case .failure(let error) = loaded { judge(error, "loading", problems, &stages) }
        let tracks = (try? loaded.get().0) ?? []
        let duration = (try? loaded.get().1) ?? .invalid

        // Pictures, twice.
        say("STAGE images")
        if tracks.contains(where: { $0.mediaType == .video }) {
            let generator = AVAssetImageGenerator(asset: asset)
            generator.maximumSize = CGSize(width: 64, height: 64)
            let middle = duration.isNumeric && duration > .zero ? CMTimeMultiplyByRatio(duration, multiplier: 1, divisor: 2) : .zero
            for time in [CMTime.zero, middle] {
                switch wait({ try await generator.image(at: time).actualTime }) {
                case .success: stages.images += 1
                case .failure(let error): judge(error, "image at \(time.seconds)", problems, &stages)
                }
            }
        }

        // Every sample of every track (stored), and decoded pictures of the first video track.
        say("STAGE reading")
        if !tracks.isEmpty, let reader = try? AVAssetReader(asset: asset) {
            var outputs: [AVAssetReaderTrackOutput] = tracks.map { AVAssetReaderTrackOutput(track: $0, outputSettings: nil) }
            if let video = tracks.first(where: { $0.mediaType == .video }) {
                outputs.append(AVAssetReaderTrackOutput(track: video, outputSettings: [
                    kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange]))
            }
            for output in outputs where reader.canAdd(output) { reader.add(output) }
            if reader.startReading() {
                for output in reader.outputs {
                    var count = 0
                    while count < 2_000, output.copyNextSampleBuffer() != nil { count += 1 }
                    stages.samples += count
                }
                if reader.status == .failed { judge(reader.error, "reading", problems, &stages) }
                reader.cancelReading()
            } else {
                judge(reader.error, "startReading", problems, &stages)
            }
        }

        // A passthrough export with new metadata (what `avtool meta --set` does); every tenth file
        // also a re-encode (decoder, resampler, encoder and writer on the file's times).
        let isAudioOnly = file.pathExtension == "m4a" || file.pathExtension == "mp3"
        var exports = [(AVAssetExportPresetPassthrough, isAudioOnly && file.pathExtension == "m4a" ? AVFileType.m4a : .mov)]
        if index % 10 == 0 { exports.append(isAudioOnly ? (AVAssetExportPresetAppleM4A, .m4a) : (AVAssetExportPreset640x480, .mp4)) }
        for (number, (preset, type)) in exports.enumerated() {
            say("STAGE export \(preset)")
            let outDir = work.appendingPathComponent("out-\(index)-\(number)")
            try? FileManager.default.createDirectory(at: outDir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: outDir) }
            guard let session = AVAssetExportSession(asset: asset, presetName: preset) else { continue }
            session.outputURL = outDir.appendingPathComponent("out").appendingPathExtension(type == .m4a ? "m4a" : type == .mp4 ? "mp4" : "mov")
            session.outputFileType = type
            let title = AVMutableMetadataItem()
            title.identifier = .commonIdentifierTitle
            title.value = "Hostile" as NSString
            session.metadata = [title]
            // Estimates multiply the file's durations and sizes.
            _ = session.estimatedOutputFileLength
            session.fileLengthLimit = 1 << 20
            _ = session.maxDuration
            session.fileLengthLimit = 0
            let done = DispatchSemaphore(value: 0)
            session.exportAsynchronously { done.signal() }
            done.wait()
            if session.status == .completed {
                if number == 0 { stages.exported = true }
            } else {
                judge(session.error, "export \(preset)", problems, &stages)
                let left = (try? FileManager.default.contentsOfDirectory(atPath: outDir.path)) ?? []
                if !left.isEmpty { problems.add("a failed \(preset) export left \(left) behind") }
            }
        }
        say("STAGE edit-list rewrite")
        rewriteEditList(file, work: work, index: index, problems: problems, &stages)
        return stages
    }
}

/// The mutant child's record of a death by signal: the signal and the raw stack frames, written to
/// the progress log (the child's stderr carries no backtrace: swift-testing disables the
/// backtracer in exit-test children, and a trap without a message prints nothing).
enum CrashRecorder {
    typealias Backtrace = @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?, Int32) -> Int32
    typealias SymbolsToFile = @convention(c) (UnsafePointer<UnsafeMutableRawPointer?>?, Int32, Int32) -> Void
    static let frameCapacity: Int32 = 48
    nonisolated(unsafe) static var fd: Int32 = -1
    nonisolated(unsafe) static var backtrace: Backtrace?
    nonisolated(unsafe) static var symbolsToFile: SymbolsToFile?
    /// Memory the handler uses, allocated up front (a handler must not allocate).
    nonisolated(unsafe) static var frames = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: Int(frameCapacity))
    nonisolated(unsafe) static var text = UnsafeMutablePointer<UInt8>.allocate(capacity: 16)

    /// Installs the handlers for the signals a trap or a memory fault raises. glibc's `backtrace`
    /// (not in Swift's Glibc module) is found with dlsym and called once here, so that the
    /// handler itself loads nothing.
    static func install(fileDescriptor: Int32) {
        fd = fileDescriptor
        let handle = dlopen(nil, RTLD_NOW)
        backtrace = dlsym(handle, "backtrace").map { unsafeBitCast($0, to: Backtrace.self) }
        symbolsToFile = dlsym(handle, "backtrace_symbols_fd").map { unsafeBitCast($0, to: SymbolsToFile.self) }
        _ = backtrace?(frames, frameCapacity)
        for sig in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT] {
            signal(sig) { sig in
                // Only async-signal-safe work: "SIGNAL <n>" by hand, backtrace, backtrace_symbols_fd.
                let prefix: StaticString = "SIGNAL "
                _ = write(CrashRecorder.fd, prefix.utf8Start, prefix.utf8CodeUnitCount)
                let text = CrashRecorder.text
                var n = Int(sig), digits = 0
                repeat { text[15 - digits] = UInt8(48 + n % 10); n /= 10; digits += 1 } while n > 0 && digits < 15
                _ = write(CrashRecorder.fd, text + 16 - digits, digits)
                let newline: StaticString = "\n"
                _ = write(CrashRecorder.fd, newline.utf8Start, 1)
                if let count = CrashRecorder.backtrace?(CrashRecorder.frames, CrashRecorder.frameCapacity) {
                    CrashRecorder.symbolsToFile?(CrashRecorder.frames, count, CrashRecorder.fd)
                }
                signal(sig, SIG_DFL)
                raise(sig)
            }
        }
    }
}
