// AVCaptureFileOutput: the abstract output recording captured media to files, and the delegate
// protocol told how each recording goes. Each recording is one MovieRecorder (crash-safe,
// real-time, on AVAssetWriter); concrete outputs say how it is configured and feed it.
import CoreMedia
import Foundation
import Synchronization
internal import MediaEngine

/// Methods for responding to events that occur while recording captured media to a file.
///
/// Only `fileOutput(_:didFinishRecordingTo:from:error:)` is required; the others have default
/// implementations (Apple's optional methods). The default of the `startPTS` variant calls
/// `fileOutput(_:didStartRecordingTo:from:)`, so a delegate implementing either gets one call.
public protocol AVCaptureFileOutputRecordingDelegate: NSObjectProtocol {
    /// The output started writing `fileURL` (not called when an error prevented any writing).
    func fileOutput(_ output: AVCaptureFileOutput, didStartRecordingTo fileURL: URL, from connections: [AVCaptureConnection])
    /// The output started writing `fileURL`; `startPTS` is the capture time of file time zero.
    func fileOutput(_ output: AVCaptureFileOutput, didStartRecordingTo fileURL: URL, startPTS: CMTime,
                    from connections: [AVCaptureConnection])
    /// The recording was paused (`pauseRecording()`).
    func fileOutput(_ output: AVCaptureFileOutput, didPauseRecordingTo fileURL: URL, from connections: [AVCaptureConnection])
    /// The recording was resumed (`resumeRecording()`).
    func fileOutput(_ output: AVCaptureFileOutput, didResumeRecordingTo fileURL: URL, from connections: [AVCaptureConnection])
    /// The output will stop writing `fileURL` (a stop, a limit or an error).
    func fileOutput(_ output: AVCaptureFileOutput, willFinishRecordingTo fileURL: URL, from connections: [AVCaptureConnection],
                    error: (any Error)?)
    /// The recording ended and the file is finished. Called exactly once per `startRecording`.
    /// `error` is nil for a plain stop; otherwise an `AVError` whose
    /// `AVErrorRecordingSuccessfullyFinishedKey` tells whether the file is playable.
    func fileOutput(_ output: AVCaptureFileOutput, didFinishRecordingTo outputFileURL: URL, from connections: [AVCaptureConnection],
                    error: (any Error)?)
}

extension AVCaptureFileOutputRecordingDelegate {
    public func fileOutput(_ output: AVCaptureFileOutput, didStartRecordingTo fileURL: URL, from connections: [AVCaptureConnection]) {}
    public func fileOutput(_ output: AVCaptureFileOutput, didStartRecordingTo fileURL: URL, startPTS: CMTime,
                           from connections: [AVCaptureConnection]) {
        fileOutput(output, didStartRecordingTo: fileURL, from: connections)
    }
    public func fileOutput(_ output: AVCaptureFileOutput, didPauseRecordingTo fileURL: URL, from connections: [AVCaptureConnection]) {}
    public func fileOutput(_ output: AVCaptureFileOutput, didResumeRecordingTo fileURL: URL, from connections: [AVCaptureConnection]) {}
    public func fileOutput(_ output: AVCaptureFileOutput, willFinishRecordingTo fileURL: URL, from connections: [AVCaptureConnection],
                           error: (any Error)?) {}
}

/// The abstract superclass of outputs that record captured media to files.
///
/// `startRecording(to:recordingDelegate:)` creates the file at once (an existing file is never
/// touched: the delegate gets `AVError(.fileAlreadyExists)`); the movie starts at the first
/// video frame captured after it. As on macOS, starting while recording finishes the current
/// file (its delegate gets no error) and starts the next. The delegate's calls come on an
/// internal serial queue, in order: started, paused/resumed, will finish, finished (exactly once
/// per start). A recording also ends when a limit is reached (`.maximumDurationReached`,
/// `.maximumFileSizeReached`, `.diskFull`), when the session stops (`.sessionWasInterrupted`),
/// when a reconfiguration removes the output or its inputs (`.sessionConfigurationChanged`),
/// when a device of the recording is lost (`.deviceWasDisconnected`) — each with
/// `AVErrorRecordingSuccessfullyFinishedKey` true when the file is playable.
open class AVCaptureFileOutput: AVCaptureOutput, @unchecked Sendable {
    /// One recording: its engine, file, delegate and what it has told the delegate.
    // Invariant: `recorder` is set before the recording is shared; `started`, `toldWillFinish`
    // and `done` change only under the output's `state` lock, `audioEnd` only on `work`.
    final class Recording: @unchecked Sendable {
        let url: URL
        let delegate: any AVCaptureFileOutputRecordingDelegate
        let connections: [AVCaptureConnection]
        let width: Int
        let height: Int
        var recorder: MovieRecorder!
        var started = false
        var toldWillFinish = false
        /// The recorder reported its end.
        var done = false
        /// Where the last chunk of sound handed to the recorder ended (on the work queue only).
        var audioEnd: CMTime?

        init(url: URL, delegate: any AVCaptureFileOutputRecordingDelegate, connections: [AVCaptureConnection], width: Int, height: Int) {
            self.url = url
            self.delegate = delegate
            self.connections = connections
            self.width = width
            self.height = height
        }
    }

    /// The recordings, the flags and the limits; a recording's `started`, `toldWillFinish` and
    /// `done` are read and written under this lock too.
    private struct State {
        /// The recording samples go to (nil when none runs or it is ending).
        var current: Recording?
        var lastRecording: Recording?
        var recordingFlag = false
        var pausedFlag = false
        var maxDuration: CMTime = .invalid
        var maxFileSize: Int64 = 0
        var minFreeSpace: Int64 = 0
    }
    private let state = Mutex(State())
    /// The delegate's calls, in order.
    let callbacks = DispatchQueue(label: "com.avfoundation.capture.file-output.delegate")
    /// Samples on their way to the recorder (conversion and encoding never block the source).
    let work = DispatchQueue(label: "com.avfoundation.capture.file-output.work")

    override init() {
        super.init()
    }

    // MARK: State

    /// The URL of the file being recorded; nil when not recording.
    open var outputFileURL: URL? { state.withLock { $0.current?.url } }

    /// Whether the output is recording a file. Observable.
    open var isRecording: Bool { state.withLock { $0.recordingFlag } }

    /// Whether the recording is paused.
    open var isRecordingPaused: Bool { state.withLock { $0.pausedFlag } }

    /// How long the current (or last) recording is so far.
    open var recordedDuration: CMTime {
        state.withLock { state in (state.current ?? state.lastRecording)?.recorder?.recordedDuration } ?? .zero
    }

    /// The size in bytes of the current (or last) recording so far.
    open var recordedFileSize: Int64 {
        state.withLock { state in (state.current ?? state.lastRecording)?.recorder?.recordedFileSize } ?? 0
    }

    /// The longest a recording may get; `.invalid` (default): no limit. Read when a recording starts.
    open var maxRecordedDuration: CMTime {
        get { state.withLock { $0.maxDuration } }
        set { state.withLock { $0.maxDuration = newValue } }
    }

    /// The largest a recorded file may get, in bytes; 0 (default): no limit. Read when a recording starts.
    open var maxRecordedFileSize: Int64 {
        get { state.withLock { $0.maxFileSize } }
        set { state.withLock { $0.maxFileSize = newValue } }
    }

    /// The free space in bytes a recording must leave on its disk; 0 (default): no limit.
    open var minFreeDiskSpaceLimit: Int64 {
        get { state.withLock { $0.minFreeSpace } }
        set { state.withLock { $0.minFreeSpace = newValue } }
    }

    // MARK: Recording

    /// Starts recording to `outputFileURL` (a file URL; any other raises). The delegate is told
    /// how the recording goes and, exactly once, when it finished.
    open func startRecording(to outputFileURL: URL, recordingDelegate delegate: any AVCaptureFileOutputRecordingDelegate) {
        guard outputFileURL.isFileURL else {
            CaptureException.raise(String(describing: type(of: self)), "startRecordingToOutputFileURL:recordingDelegate:",
                                   "Cannot record to URL \(outputFileURL) because it is not a file URL.")
        }
        // macOS: starting while recording finishes the current file first.
        endCurrent(error: nil)
        let connections = self.connections.filter(\.isEnabled)
        guard let session = owningSession, session.isRunning, !connections.isEmpty else {
            let recording = Recording(url: outputFileURL, delegate: delegate, connections: connections, width: 0, height: 0)
            report(recording, AVError(.sessionNotRunning, userInfo: [
                AVErrorRecordingSuccessfullyFinishedKey: false, NSURLErrorKey: outputFileURL,
                NSLocalizedFailureReasonErrorKey: "The recording could not start because the output is not in a running session."]))
            return
        }
        let limits = state.withLock { state in (state.maxDuration, state.maxFileSize, state.minFreeSpace) }
        guard let made = recorderConfiguration(for: outputFileURL, session: session) else {
            let recording = Recording(url: outputFileURL, delegate: delegate, connections: connections, width: 0, height: 0)
            report(recording, AVError(.noSourceTrack, userInfo: [
                AVErrorRecordingSuccessfullyFinishedKey: false, NSURLErrorKey: outputFileURL,
                NSLocalizedFailureReasonErrorKey: "The output's connections have no media to record."]))
            return
        }
        var configuration = made.0
        let (width, height) = (made.1, made.2)
        configuration.maxRecordedDuration = limits.0
        configuration.maxRecordedFileSize = limits.1
        configuration.minFreeDiskSpaceLimit = limits.2
        let recording = Recording(url: outputFileURL, delegate: delegate, connections: connections, width: width, height: height)
        let recorder: MovieRecorder
        do {
            recorder = try MovieRecorder(configuration: configuration) { [weak self] error in
                self?.recorderFinished(recording, error: error)
            }
        } catch {
            var info = (error as NSError).userInfo
            info[AVErrorRecordingSuccessfullyFinishedKey] = false
            let code = (error as? AVError)?.code ?? .unknown
            report(recording, AVError(code, userInfo: info))
            return
        }
        recording.recorder = recorder
        recorder.startHandler = { [weak self] pts in
            guard let self else { return }
            self.callbacks.async {
                let tell = self.state.withLock { state -> Bool in
                    guard !recording.toldWillFinish else { return false }
                    recording.started = true
                    return true
                }
                if tell { recording.delegate.fileOutput(self, didStartRecordingTo: recording.url, startPTS: pts, from: recording.connections) }
            }
        }
        state.withLock { $0.lastRecording = recording }
        setRecordingFlag(true)
        // The file is created (the writer started) before any sample can reach the recorder;
        // on failure (an existing file…) the completion reports the error.
        guard recorder.start() else { return }
        let published = state.withLock { state -> Bool in
            // A failure right after the start may already have ended it.
            guard !recording.done else { return false }
            state.current = recording
            state.pausedFlag = false
            return true
        }
        if !published { setRecordingFlag(false) }
    }

    /// Stops recording; the delegate's `didFinishRecordingTo` comes when the file is finished.
    open func stopRecording() {
        endCurrent(error: nil)
    }

    /// Pauses the recording: captured media is left out until `resumeRecording()`.
    open func pauseRecording() {
        guard let recording = state.withLock({ state -> Recording? in
            guard let current = state.current, !state.pausedFlag else { return nil }
            state.pausedFlag = true
            return current
        }) else { return }
        work.async { recording.recorder.pause() }
        callbacks.async { [self] in recording.delegate.fileOutput(self, didPauseRecordingTo: recording.url, from: recording.connections) }
    }

    /// Resumes a paused recording; the file continues without a gap.
    open func resumeRecording() {
        guard let recording = state.withLock({ state -> Recording? in
            guard let current = state.current, state.pausedFlag else { return nil }
            state.pausedFlag = false
            return current
        }) else { return }
        work.async { recording.recorder.resume() }
        callbacks.async { [self] in recording.delegate.fileOutput(self, didResumeRecordingTo: recording.url, from: recording.connections) }
    }

    // MARK: For concrete outputs

    /// The recorder configuration for a recording to `url` from the output's connections, with
    /// the recorded picture size (0×0 without video); nil when there is nothing to record.
    func recorderConfiguration(for url: URL, session: AVCaptureSession) -> (MovieRecorder.Configuration, Int, Int)? { nil }

    /// Ends the current recording with `code` (nil: a plain stop) after the samples already
    /// queued; the delegate is told it will finish.
    func endCurrent(error code: AVError.Code?) {
        guard let recording = state.withLock({ state -> Recording? in
            guard let current = state.current else { return nil }
            state.current = nil
            state.pausedFlag = false
            return current
        }) else { return }
        setRecordingFlag(false)
        let error = code.map { AVError($0, userInfo: [NSURLErrorKey: recording.url]) }
        callbacks.async { [self] in tellWillFinish(recording, error: error) }
        work.async { recording.recorder.finish(error: code) }
    }

    /// The recording samples go to now.
    var activeRecording: Recording? { state.withLock { $0.current } }

    override func captureDidStop() {
        // The session stopped, or a reconfiguration took the output (or its inputs) out of the
        // running graph. A device of the recording gone is a disconnection (the session marks
        // a failed source's device before it stops).
        guard let recording = activeRecording else { return }
        let lost = recording.connections.contains { connection in
            connection.inputPorts.contains { $0.input.sourceDevice?.isConnected == false }
        }
        let code: AVError.Code
        if lost {
            code = .deviceWasDisconnected
        } else if let session = owningSession,
                  recording.connections.allSatisfy({ connection in session.connections.contains { $0 === connection } }) {
            code = .sessionWasInterrupted
        } else {
            code = .sessionConfigurationChanged
        }
        endCurrent(error: code)
    }

    // MARK: Ending

    private func setRecordingFlag(_ value: Bool) {
        let old = state.withLock { state -> Bool in
            defer { state.recordingFlag = value }
            return state.recordingFlag
        }
        if old != value { KVORegistry.shared.didChange(self, \AVCaptureFileOutput.isRecording, old: old) }
    }

    /// The recorder called its completion (on a global queue): the recording is over.
    private func recorderFinished(_ recording: Recording, error: (any Error)?) {
        let wasCurrent = state.withLock { state -> Bool in
            recording.done = true
            guard state.current === recording else { return state.lastRecording === recording && state.recordingFlag }
            state.current = nil
            state.pausedFlag = false
            return true
        }
        if wasCurrent { setRecordingFlag(false) }
        callbacks.async { [self] in
            tellWillFinish(recording, error: error)
            recording.delegate.fileOutput(self, didFinishRecordingTo: recording.url, from: recording.connections, error: error)
        }
    }

    /// Tells the delegate the recording will finish, once, when it started (on `callbacks`).
    private func tellWillFinish(_ recording: Recording, error: (any Error)?) {
        let tell = state.withLock { state -> Bool in
            defer { recording.toldWillFinish = true }
            return recording.started && !recording.toldWillFinish
        }
        if tell { recording.delegate.fileOutput(self, willFinishRecordingTo: recording.url, from: recording.connections, error: error) }
    }

    /// A recording that could not start: the delegate gets `error` (asynchronously).
    private func report(_ recording: Recording, _ error: AVError) {
        callbacks.async { [self] in
            recording.delegate.fileOutput(self, didFinishRecordingTo: recording.url, from: recording.connections, error: error)
        }
    }
}
