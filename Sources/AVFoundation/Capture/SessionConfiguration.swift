// SessionConfiguration: what a capture session is made of (inputs, outputs, preview layers,
// connections, preset), edited by the session's mutators and applied to the running graph as a
// whole.
import Foundation

struct SessionConfiguration {
    /// A preview layer previewing the session, held weakly (the layer holds the session).
    struct PreviewLayerEntry {
        weak var layer: AVCaptureVideoPreviewLayer?
        /// Whether the session connects the layer by itself (`init(session:)`, `session =`):
        /// now to the first video port, and later to the first video port of an input added
        /// while the layer has no connection. Layers set with no connection get only the ones
        /// added with `addConnection(_:)`.
        let connectsAutomatically: Bool
    }

    var inputs: [AVCaptureInput] = []
    var outputs: [AVCaptureOutput] = []
    var previewLayers: [PreviewLayerEntry] = []
    var connections: [AVCaptureConnection] = []
    var preset: AVCaptureSession.Preset = .high

    /// How many connections of `mediaType` feed `output`.
    func connectionCount(of output: AVCaptureOutput, mediaType: AVMediaType) -> Int {
        connections.filter { $0.output === output && $0.inputPorts.contains { $0.mediaType == mediaType } }.count
    }

    /// Whether `output` takes one more connection from `port`.
    func hasRoom(_ output: AVCaptureOutput, for port: AVCaptureInput.Port) -> Bool {
        guard output.connectionLimit(for: port.mediaType) > connectionCount(of: output, mediaType: port.mediaType) else { return false }
        return !connections.contains { $0.output === output && $0.inputPorts.contains { $0 === port } }
    }

    /// The connections greedy wiring makes for a new input: each port to every output with
    /// room, and its first video port to every automatically connected preview layer without a
    /// connection.
    func greedyConnections(for input: AVCaptureInput) -> [AVCaptureConnection] {
        var copy = self
        var made: [AVCaptureConnection] = []
        for port in input.ports {
            for output in outputs where copy.hasRoom(output, for: port) {
                let connection = AVCaptureConnection(inputPorts: [port], output: output)
                copy.connections.append(connection)
                made.append(connection)
            }
            for entry in previewLayers where entry.connectsAutomatically {
                guard let layer = entry.layer, copy.hasRoom(layer, for: port) else { continue }
                let connection = AVCaptureConnection(inputPort: port, videoPreviewLayer: layer)
                copy.connections.append(connection)
                made.append(connection)
            }
        }
        return made
    }

    /// The connection feeding `layer`, if any.
    func previewConnection(of layer: AVCaptureVideoPreviewLayer) -> AVCaptureConnection? {
        connections.first { $0.videoPreviewLayer === layer }
    }

    /// Whether `layer` takes a connection from `port`: a video port, and the layer has none
    /// (a layer shows one input port's picture).
    func hasRoom(_ layer: AVCaptureVideoPreviewLayer, for port: AVCaptureInput.Port) -> Bool {
        port.mediaType == .video && previewConnection(of: layer) == nil
    }

    /// The connection greedy wiring makes for a layer joining the session: to the first video
    /// port (in input order), or nil.
    func greedyConnection(for layer: AVCaptureVideoPreviewLayer) -> AVCaptureConnection? {
        for input in inputs {
            for port in input.ports where hasRoom(layer, for: port) {
                return AVCaptureConnection(inputPort: port, videoPreviewLayer: layer)
            }
        }
        return nil
    }

    /// Whether `layer` previews this session.
    func contains(_ layer: AVCaptureVideoPreviewLayer) -> Bool {
        previewLayers.contains { $0.layer === layer }
    }

    /// The connections greedy wiring makes for a new output: the first ports (in input order)
    /// it has room for.
    func greedyConnections(for output: AVCaptureOutput) -> [AVCaptureConnection] {
        var copy = self
        var made: [AVCaptureConnection] = []
        for input in inputs {
            for port in input.ports where copy.hasRoom(output, for: port) {
                let connection = AVCaptureConnection(inputPorts: [port], output: output)
                copy.connections.append(connection)
                made.append(connection)
            }
        }
        return made
    }

    /// The device inputs.
    var deviceInputs: [AVCaptureDeviceInput] { inputs.compactMap { $0 as? AVCaptureDeviceInput } }
}
