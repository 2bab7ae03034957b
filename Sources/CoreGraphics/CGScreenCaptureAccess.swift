// Screen-capture access (CGPreflightScreenCaptureAccess, CGRequestScreenCaptureAccess). On Apple
// platforms they check and request the user's permission to record the screen. On Linux screens
// are captured through the X server (AVCaptureScreenInput), which grants any client that can
// connect to it; so access is granted exactly when the X display the `DISPLAY` variable names
// accepts a connection, and a request cannot change that (there is no prompt to show).
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether the process may capture the screen: true when the X display named by `DISPLAY` is
/// reachable (its socket accepts a connection), false when `DISPLAY` is unset or nothing answers.
public func CGPreflightScreenCaptureAccess() -> Bool {
    XDisplayProbe.isReachable(ProcessInfo.processInfo.environment["DISPLAY"])
}

/// Requests screen-capture access. There is no permission to grant on Linux: returns what
/// `CGPreflightScreenCaptureAccess()` returns.
@discardableResult
public func CGRequestScreenCaptureAccess() -> Bool {
    CGPreflightScreenCaptureAccess()
}

/// Whether an X display accepts a connection: local displays (`:0`, `unix:0`) through the
/// server's socket (Linux's abstract `/tmp/.X11-unix/X<n>`, then the file), remote ones
/// (`host:0`) over TCP port 6000 + n. Only the connection is tried; nothing is sent.
enum XDisplayProbe {
    static func isReachable(_ display: String?) -> Bool {
        guard let display, let colon = display.lastIndex(of: ":") else { return false }
        let host = String(display[..<colon])
        let digits = display[display.index(after: colon)...].prefix { $0.isNumber }
        guard let number = Int(digits), number < 10_000 else { return false }
        if host.isEmpty || host == "unix" || host.hasPrefix("/") {
            let path = "/tmp/.X11-unix/X\(number)"
            return connectsLocally(path, abstract: true) || connectsLocally(path, abstract: false)
        }
        return connectsOverTCP(host: host, port: 6000 + number)
    }

    private static func connectsLocally(_ path: String, abstract: Bool) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // An abstract name starts with a NUL byte and its length is the address's length.
        let name = Array((abstract ? "\0" + path : path).utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard name.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: name)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + name.count + (abstract ? 0 : 1))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) == 0 }
        }
    }

    private static func connectsOverTCP(host: String, port: Int) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(first) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd >= 0 {
                let connected = connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0
                close(fd)
                if connected { return true }
            }
            entry = info.pointee.ai_next
        }
        return false
    }
}
