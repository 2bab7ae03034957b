// A small HTTP/1.1 file server on 127.0.0.1 for the streaming tests: GET and HEAD with byte ranges
// (as FFmpeg's http protocol asks for a movie's index at its end), and faults on request — a
// throttled rate, a connection dropped after some bytes, or a server that stops answering.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

package final class LoopbackHTTPServer: @unchecked Sendable {
    // @unchecked Sendable: owns the listening socket (a file descriptor, closed once in stop());
    // everything that changes is in `state`, a Mutex.

    /// How the server misbehaves.
    package struct Faults: Sendable {
        /// Sends at most this many bytes a second per connection.
        package var bytesPerSecond: Int?
        /// After this many body bytes in all, the server stops answering: open connections stay
        /// open and silent, new ones are accepted and never answered.
        package var stallAfterBytes: Int?
        /// After this many body bytes in all, connections are closed at once, new ones too.
        package var dropAfterBytes: Int?

        package init(bytesPerSecond: Int? = nil, stallAfterBytes: Int? = nil, dropAfterBytes: Int? = nil) {
            self.bytesPerSecond = bytesPerSecond
            self.stallAfterBytes = stallAfterBytes
            self.dropAfterBytes = dropAfterBytes
        }
    }

    private struct State {
        var stopped = false
        var silent = false
        var sent = 0
        var requests: [String] = []
    }

    package let root: URL
    package let port: UInt16
    private let faults: Faults
    private let listener: Int32
    private let state = Mutex(State())

    /// Serves the files under `root` on 127.0.0.1 at a port the system picks.
    package init(root: URL, faults: Faults = Faults()) throws {
        self.root = root
        self.faults = faults
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "LoopbackHTTPServer"
        thread.start()
    }

    deinit { stop() }

    /// The URL of `path` (relative to the root) on this server.
    package func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }

    /// The request lines received so far ("GET /a.mp4 bytes=0-").
    package var requests: [String] { state.withLock { $0.requests } }

    /// Body bytes sent so far, over all connections.
    package var bytesSent: Int { state.withLock { $0.sent } }

    /// From now on the server stops answering: connections stay open and silent.
    package func stopAnswering() { state.withLock { $0.silent = true } }

    /// Stops accepting and ends every connection.
    package func stop() {
        let first = state.withLock { s -> Bool in
            defer { s.stopped = true }
            return !s.stopped
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private var stopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        while !stopped {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            var noSigPipe: Int32 = 1
            setsockopt(client, SOL_SOCKET, SO_KEEPALIVE, &noSigPipe, socklen_t(MemoryLayout<Int32>.size))
            let thread = Thread { [self] in
                serve(client)
                close(client)
            }
            thread.start()
        }
    }

    /// Whether the fault limits were passed (stall: answer nothing; drop: close).
    private func limits() -> (stall: Bool, drop: Bool) {
        let (sent, silent) = state.withLock { ($0.sent, $0.silent) }
        return (silent || (faults.stallAfterBytes.map { sent >= $0 } ?? false), faults.dropAfterBytes.map { sent >= $0 } ?? false)
    }

    private func stallUntilStopped() {
        while !stopped { usleep(50_000) }
    }

    private func serve(_ client: Int32) {
        // The request head.
        var head = Data()
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard recv(client, &byte, 1, 0) == 1 else { return }
            head.append(byte)
            if head.count > 16_384 { return }
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2 else { return }
        let method = String(parts[0]), target = String(parts[1])
        let range = lines.first { $0.lowercased().hasPrefix("range:") }
            .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) }
        state.withLock { $0.requests.append("\(method) \(target)\(range.map { " \($0)" } ?? "")") }

        let (stall, drop) = limits()
        if drop { return }
        if stall { stallUntilStopped(); return }

        let path = target.split(separator: "?").first.map(String.init)?.removingPercentEncoding ?? target
        let file = root.appendingPathComponent(String(path.drop { $0 == "/" }))
        guard !path.contains(".."), let data = try? Data(contentsOf: file, options: .mappedIfSafe) else {
            send(client, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        }
        var start = 0, end = data.count - 1
        var status = "200 OK"
        if let range, range.hasPrefix("bytes=") {
            let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
            if let first = bounds.first, let a = Int(first) { start = a }
            if bounds.count > 1, let b = Int(bounds[1]) { end = min(b, data.count - 1) }
            guard start < data.count, start <= end else {
                send(client, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */\(data.count)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            }
            status = "206 Partial Content"
        }
        let type: String
        switch file.pathExtension.lowercased() {
        case "m3u8": type = "application/vnd.apple.mpegurl"
        case "ts": type = "video/mp2t"
        case "mp4", "m4v": type = "video/mp4"
        case "mov": type = "video/quicktime"
        default: type = "application/octet-stream"
        }
        var header = "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(end - start + 1)\r\nAccept-Ranges: bytes\r\n"
        if status.hasPrefix("206") { header += "Content-Range: bytes \(start)-\(end)/\(data.count)\r\n" }
        header += "Connection: close\r\n\r\n"
        guard send(client, header), method != "HEAD" else { return }

        // The body, in 16 KiB pieces, paced and cut as the faults say.
        var offset = start
        let began = Date()
        var sentHere = 0
        while offset <= end, !stopped {
            let (stall, drop) = limits()
            if drop { return }
            if stall { stallUntilStopped(); return }
            var piece = min(16_384, end - offset + 1)
            if let limit = faults.stallAfterBytes ?? faults.dropAfterBytes {
                piece = max(1, min(piece, limit - state.withLock { $0.sent }))
            }
            let chunk = data.subdata(in: offset..<(offset + piece))
            let written = chunk.withUnsafeBytes { raw in Glibc.send(client, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return }
            offset += written
            sentHere += written
            state.withLock { $0.sent += written }
            if let rate = faults.bytesPerSecond, rate > 0 {
                let due = Double(sentHere) / Double(rate)
                let elapsed = Date().timeIntervalSince(began)
                if due > elapsed { usleep(useconds_t((due - elapsed) * 1_000_000)) }
            }
        }
    }

    @discardableResult
    private func send(_ client: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { raw in Glibc.send(client, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }
}
