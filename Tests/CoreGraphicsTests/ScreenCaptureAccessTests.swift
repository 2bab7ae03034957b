// CGPreflightScreenCaptureAccess on Linux: true exactly when the X display named by DISPLAY accepts
// a connection. Probed against sockets of the test's own (an abstract local socket named like an
// X server's, a TCP listener on 6000 + n), so no X server is needed.
@testable import CoreGraphics
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct ScreenCaptureAccessTests {
    /// A listening socket; closed by `close()`.
    struct Listener {
        let fd: Int32
        func close() { _ = Glibc.close(fd) }
    }

    /// Listens on the abstract Unix socket `/tmp/.X11-unix/X<number>`, as a local X server does.
    static func listenLocally(display number: Int) -> Listener? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name = Array(("\0/tmp/.X11-unix/X\(number)").utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + name.count)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 }
        }
        guard bound, listen(fd, 4) == 0 else { _ = Glibc.close(fd); return nil }
        return Listener(fd: fd)
    }

    /// Listens on 127.0.0.1:`port`.
    static func listenOverTCP(port: Int) -> Listener? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard bound, listen(fd, 4) == 0 else { _ = Glibc.close(fd); return nil }
        return Listener(fd: fd)
    }

    @Test func noDisplayMeansNoAccess() {
        #expect(!XDisplayProbe.isReachable(nil))
        #expect(!XDisplayProbe.isReachable(""))
        #expect(!XDisplayProbe.isReachable("nonsense"))
        #expect(!XDisplayProbe.isReachable(":"))
    }

    @Test func aLocalDisplayIsReachableWhileItsSocketListens() throws {
        // A display number no X server of this machine uses: free of listeners before and after.
        let number = 9_000 + Int(getpid() % 900)
        #expect(!XDisplayProbe.isReachable(":\(number)"))
        let listener = try #require(Self.listenLocally(display: number))
        #expect(XDisplayProbe.isReachable(":\(number)"))
        #expect(XDisplayProbe.isReachable(":\(number).0"))
        #expect(XDisplayProbe.isReachable("unix:\(number)"))
        listener.close()
        #expect(!XDisplayProbe.isReachable(":\(number)"))
    }

    @Test func aRemoteDisplayIsReachableOverTCP() throws {
        let number = 3_000 + Int(getpid() % 900)
        let listener = try #require(Self.listenOverTCP(port: 6_000 + number))
        #expect(XDisplayProbe.isReachable("127.0.0.1:\(number).0"))
        listener.close()
        #expect(!XDisplayProbe.isReachable("127.0.0.1:\(number)"))
    }

    @Test func requestingAnswersAsPreflight() {
        #expect(CGRequestScreenCaptureAccess() == CGPreflightScreenCaptureAccess())
    }
}
