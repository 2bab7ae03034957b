// SessionConfiguration: what a capture session is made of (inputs, outputs, connections,
// preset), edited by the session's mutators and applied to the running graph as a whole.
import Foundation

struct SessionConfiguration {
    var inputs: [AVCaptureInput] = []
    var outputs: [AVCaptureOutput] = []
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

    /// The connections greedy wiring makes for a new input: each port to every output with room.
    func greedyConnections(for input: AVCaptureInput) -> [AVCaptureConnection] {
        var copy = self
        var made: [AVCaptureConnection] = []
        for port in input.ports {
            for output in outputs where copy.hasRoom(output, for: port) {
                let connection = AVCaptureConnection(inputPorts: [port], output: output)
                copy.connections.append(connection)
                made.append(connection)
            }
        }
        return made
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
