// Building packet indexes: one pass over the container with a private demuxer, and a per-file
// cache so every consumer of a file shares the scan.
internal import CFFmpeg
import CoreMedia
import Foundation
import Synchronization

extension PacketIndex {
    /// The most packets indexed per file; a hostile file cannot make the scan run forever.
    package static let packetLimit = 50_000_000

    /// Scans `url` from the start with its own demuxer and returns an index per FFmpeg stream
    /// index (every stream, including ones without packets). Damaged data ends the scan early
    /// with `isComplete == false`; only a failure to open the file throws.
    package static func scan(url: URL, cancellation: DemuxerCancellation = DemuxerCancellation()) throws(MediaError) -> [Int: PacketIndex] {
        let demuxer = try Demuxer(url: url, cancellation: cancellation)
        return try scan(demuxer, cancellation: cancellation)
    }

    /// Scans with an already-open demuxer (rewinding it first; its read position is left at the end).
    package static func scan(_ demuxer: Demuxer, cancellation: DemuxerCancellation? = nil) throws(MediaError) -> [Int: PacketIndex] {
        var lists = [[Entry]](repeating: [], count: demuxer.streams.count)
        var lastDTS = [Int64?](repeating: nil, count: demuxer.streams.count)
        var complete = true
        var total = 0
        try? demuxer.rewind()
        while total < packetLimit {
            let packet: DemuxerPacket?
            do {
                packet = try demuxer.readPacket()
            } catch {
                if case .cancelled = error { throw error }
                complete = false
                break
            }
            guard let packet else { break }
            total += 1
            let s = packet.streamIndex
            let p = packet.pointer.pointee
            var dts = packet.rawDTS ?? packet.rawPTS
            if dts == nil, let prev = lastDTS[s], let last = lists[s].last { dts = prev.saturatingAdding(max(0, last.duration)) }
            let resolvedDTS = dts ?? 0
            let pts = packet.rawPTS ?? resolvedDTS
            lastDTS[s] = resolvedDTS
            lists[s].append(Entry(pts: pts, dts: resolvedDTS, duration: max(0, p.duration), size: p.size,
                                  position: p.pos, isKeyframe: packet.isKeyframe, isDiscardable: packet.isDiscardable))
        }
        if total >= packetLimit { complete = false }
        var out: [Int: PacketIndex] = [:]
        for (i, list) in lists.enumerated() {
            out[i] = PacketIndex(streamIndex: i, timeBase: demuxer.streams[i].timeBase, entries: list, isComplete: complete)
        }
        return out
    }
}

/// A process-wide cache of packet indexes, keyed by file identity (path, size, modification
/// time, inode), so a file is scanned once however many assets, readers or image generators use
/// it. Thread-safe; concurrent requests for the same file share one scan.
package final class PacketIndexCache: Sendable {
    /// The shared cache.
    package static let shared = PacketIndexCache(capacity: 32)

    private struct Key: Hashable { var path: String; var size: Int64; var mtime: Int; var mtimeNanos: Int; var inode: UInt64 }
    private final class Slot: @unchecked Sendable {
        let lock = NSCondition()
        var result: Result<[Int: PacketIndex], MediaError>?
    }
    private struct State { var slots: [Key: Slot] = [:]; var order: [Key] = [] }
    private let state = Mutex(State())
    private let capacity: Int

    /// A cache keeping at most `capacity` files' indexes.
    package init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The indexes of every stream of `url`, scanning the file on first use.
    package func indexes(for url: URL, cancellation: DemuxerCancellation = DemuxerCancellation()) throws(MediaError) -> [Int: PacketIndex] {
        guard let key = Self.key(for: url) else { return try PacketIndex.scan(url: url, cancellation: cancellation) }
        let (slot, owner) = state.withLock { s -> (Slot, Bool) in
            if let slot = s.slots[key] {
                s.order.removeAll { $0 == key }
                s.order.append(key)
                return (slot, false)
            }
            let slot = Slot()
            s.slots[key] = slot
            s.order.append(key)
            while s.order.count > capacity { s.slots[s.order.removeFirst()] = nil }
            return (slot, true)
        }
        if owner {
            let result: Result<[Int: PacketIndex], MediaError>
            do { result = .success(try PacketIndex.scan(url: url, cancellation: cancellation)) } catch { result = .failure(error) }
            slot.lock.lock()
            slot.result = result
            slot.lock.broadcast()
            slot.lock.unlock()
            if case .failure = result { state.withLock { s in if s.slots[key] === slot { s.slots[key] = nil; s.order.removeAll { $0 == key } } } }
            return try result.get()
        }
        slot.lock.lock()
        while slot.result == nil { slot.lock.wait() }
        let result = slot.result!
        slot.lock.unlock()
        if case .failure(let error) = result, case .cancelled = error {
            // Someone else's scan was cancelled, not ours: scan again.
            return try indexes(for: url, cancellation: cancellation)
        }
        return try result.get()
    }

    /// The index of one stream of `url`.
    package func index(for url: URL, stream: Int, cancellation: DemuxerCancellation = DemuxerCancellation()) throws(MediaError) -> PacketIndex {
        guard let index = try indexes(for: url, cancellation: cancellation)[stream] else {
            throw MediaError.invalidArgument(message: "no stream \(stream)")
        }
        return index
    }

    /// Forgets every cached index.
    package func removeAll() { state.withLock { $0 = State() } }

    private static func key(for url: URL) -> Key? {
        guard url.isFileURL else { return nil }
        var st = stat()
        guard stat(url.path, &st) == 0 else { return nil }
        return Key(path: url.standardizedFileURL.path, size: Int64(st.st_size), mtime: Int(st.st_mtim.tv_sec),
                   mtimeNanos: Int(st.st_mtim.tv_nsec), inode: UInt64(st.st_ino))
    }
}
