// AVCaptureOutput: the abstract destination of a capture session, and the internal sink side
// every concrete output implements (what the session's graph hands it).
import CoreMedia
import Foundation
import Synchronization
internal import MediaEngine

/// The abstract base of capture session outputs.
open class AVCaptureOutput: NSObject, @unchecked Sendable {
    /// The connections feeding the output, and the session it is in.
    private struct Membership {
        var connections: [AVCaptureConnection] = []
        weak var session: AVCaptureSession?
    }
    private let membership = Mutex(Membership())

    /// The session the output is in.
    var owningSession: AVCaptureSession? {
        get { membership.withLock { $0.session } }
        set { membership.withLock { $0.session = newValue } }
    }

    override init() {
        super.init()
    }

    /// The connections feeding the output.
    open var connections: [AVCaptureConnection] { membership.withLock { $0.connections } }

    /// The first connection with an input port of `mediaType`, or nil.
    open func connection(with mediaType: AVMediaType) -> AVCaptureConnection? {
        connections.first { $0.inputPorts.contains { $0.mediaType == mediaType } }
    }

    func addConnectionRecord(_ connection: AVCaptureConnection) {
        membership.withLock { $0.connections.append(connection) }
    }

    func removeConnectionRecord(_ connection: AVCaptureConnection) {
        membership.withLock { m in m.connections.removeAll { $0 === connection } }
    }

    // MARK: Sink (overridden by concrete outputs)

    /// How many connections of `mediaType` the output takes (0: none).
    func connectionLimit(for mediaType: AVMediaType) -> Int { 0 }

    /// A video frame for `connection` (called on the source's thread: hand it on quickly).
    func receive(video frame: LiveFrame, from connection: AVCaptureConnection, geometry: CaptureVideoGeometry) {}

    /// A chunk of sound for `connection` (called on the source's thread: hand it on quickly).
    func receive(audio chunk: LiveAudioChunk, from connection: AVCaptureConnection) {}

    /// The session starts delivering (before the first frame).
    func captureWillStart() {}

    /// The session stopped: no frame comes after this; when it returns, the output makes no
    /// more delegate calls.
    func captureDidStop() {}
}

/// What the session's graph uses of an output (`AVCaptureOutput` and its subclasses).
protocol CaptureSink: AnyObject, Sendable {
    func connectionLimit(for mediaType: AVMediaType) -> Int
    func receive(video frame: LiveFrame, from connection: AVCaptureConnection, geometry: CaptureVideoGeometry)
    func receive(audio chunk: LiveAudioChunk, from connection: AVCaptureConnection)
    func captureWillStart()
    func captureDidStop()
}

extension AVCaptureOutput: CaptureSink {}
