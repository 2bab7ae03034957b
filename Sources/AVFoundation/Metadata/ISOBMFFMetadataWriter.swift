// Our own ISO base media metadata writer: rewrites a finished MP4 / M4V / M4A / 3GP / MOV file's
// movie box with new metadata (ISOBMFFMetadataEditor) and copies everything else unchanged,
// through the engine's movie rewriter (MovieBoxRewriter: offsets of moved media are kept right,
// damaged files are refused before anything is written). Damage and I/O failures become
// AVErrors here; the source is only read, except in the in-place mode meant for files the caller
// owns (AVAssetWriter's output).
import Foundation
internal import MediaEngine

enum ISOBMFFMetadataWriter {
    /// Where the movie box goes.
    typealias Layout = MovieBoxRewriter.Layout

    /// Writes a copy of `source` with `items` as its file-level metadata to `destination`.
    ///
    /// `replacingDestination`: an existing destination is replaced (atomically, also when it is
    /// the source); otherwise an existing destination fails with `AVError.fileAlreadyExists`.
    /// Throws an AVError for a damaged or foreign file, or a failure to read or write; nothing is
    /// left at `destination` then, and the source is never changed.
    static func write(_ items: [AVMetadataItem], mode: ISOBMFFMetadataMode = .adding, from source: URL,
                              to destination: URL, layout: Layout = .keep, replacingDestination: Bool = false) throws {
        try rewrite(items, mode: mode, source: source, destination: destination, layout: layout,
                    replacing: replacingDestination, inPlace: false)
    }

    /// Rewrites a file the caller owns: when the media stays where it is (the movie box is last,
    /// or fits where it was) only the movie box is written; otherwise a new file replaces it.
    static func rewriteInPlace(_ url: URL, items: [AVMetadataItem], mode: ISOBMFFMetadataMode = .adding,
                                       layout: Layout = .keep) throws {
        try rewrite(items, mode: mode, source: url, destination: url, layout: layout, replacing: true, inPlace: true)
    }

    /// The style a file's metadata is written in, from its `ftyp` major brand ('qt  ': QuickTime).
    static func style(forMajorBrand brand: UInt32?) -> ISOBMFFMetadataStyle {
        brand == FourCC.code("qt  ") ? .quickTimeMovie : .mpeg4
    }

    private static func rewrite(_ items: [AVMetadataItem], mode: ISOBMFFMetadataMode, source: URL, destination: URL,
                                layout: Layout, replacing: Bool, inPlace: Bool) throws {
        let input: MediaFile
        do {
            input = try MediaFile(url: source, writable: inPlace)
        } catch {
            throw AVError.from(error, url: source)
        }
        defer { input.close() }
        let plan: MovieBoxRewriter.Plan
        do {
            plan = try MovieBoxRewriter.makePlan(file: input, layout: layout) { movie, brand in
                try ISOBMFFMetadataEditor(style: style(forMajorBrand: brand)).apply(items, mode: mode, to: &movie)
            }
        } catch let failure as BoxError {
            if let underlying = failure.underlying { throw AVError.from(underlying, url: source) }
            throw damaged(failure, url: source)
        } catch let error as MediaError {
            throw AVError.from(error, url: source)
        }

        // In place when every source piece stays where it is: write the new bytes over the old.
        if inPlace, plan.keepsSourceInPlace {
            do {
                try MovieBoxRewriter.writeInPlace(plan, file: input)
            } catch {
                throw AVError.from(error, writingTo: destination)
            }
            return
        }

        if !replacing, FileManager.default.fileExists(atPath: destination.path) {
            throw WriterError.fileAlreadyExists(url: destination)
        }
        do {
            try MovieBoxRewriter.write(plan, from: input, to: destination, replacing: replacing)
        } catch {
            throw AVError.from(error, writingTo: destination)
        }
    }

    private static func damaged(_ failure: BoxError, url: URL) -> AVError {
        let code: AVError.Code = failure.notRecognized ? .fileFormatNotRecognized : .fileFailedToParse
        return AVError(code, userInfo: [
            NSLocalizedDescriptionKey: failure.notRecognized ? "Cannot Open" : "The file is damaged",
            NSLocalizedFailureReasonErrorKey: "The metadata of \(url.lastPathComponent) cannot be written: \(failure.reason).",
            NSURLErrorKey: url, NSFilePathErrorKey: url.path,
        ])
    }
}
