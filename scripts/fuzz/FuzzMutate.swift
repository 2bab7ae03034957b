// scripts/fuzz.sh's mutant writer: compiled with Tests/AVFoundationTests/HostileInputMutator.swift
// (the engine HostileInputTests uses) by swiftc. Usage: fuzz-mutate SEEDFILE OUTDIR FIRST COUNT
// writes OUTDIR/<seedname>-<n>.<ext> for n in FIRST ..< FIRST+COUNT and prints "path<TAB>edits" lines.
import Foundation

@main
struct FuzzMutate {
    static func main() throws {
        let args = CommandLine.arguments
        guard args.count == 5, let first = UInt64(args[3]), let count = UInt64(args[4]) else {
            FileHandle.standardError.write(Data("usage: fuzz-mutate SEEDFILE OUTDIR FIRST COUNT\n".utf8))
            exit(2)
        }
        let seedURL = URL(fileURLWithPath: args[1])
        let seed = [UInt8](try Data(contentsOf: seedURL))
        let base = seedURL.deletingPathExtension().lastPathComponent
        let ext = seedURL.pathExtension
        for n in first ..< first + count {
            let (bytes, edits) = HostileMutator.mutate(seed, mutantSeed: HostileMutator.mutantSeed(base, n))
            let out = URL(fileURLWithPath: args[2]).appendingPathComponent("\(base)-\(n).\(ext)")
            try Data(bytes).write(to: out)
            print("\(out.path)\t\(edits)")
        }
    }
}
