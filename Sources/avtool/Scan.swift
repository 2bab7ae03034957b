// `avtool scan [--camera ID] [--types qr,ean13,…] [--once] [--duration S]`: reads machine-readable
// codes from a camera (a V4L2 camera, or a virtual one: AVFOUNDATION_VIRTUAL_CAMERAS=code.png)
// through a capture session with an AVCaptureMetadataOutput, the way an app does.
//
// Output: one line per code seen, when the set of codes in view changes:
//   TYPE<TAB>payload<TAB>x1,y1 x2,y2 x3,y3 x4,y4
// TYPE is the short name (qr, ean13, …); corners are Apple's normalised capture-device
// coordinates (0…1, top-left origin). Exit status: 0 when a code was read, 1 when none was before
// the time ran out, 2 when the camera could not be used.
import ArgumentParser
import AVFoundation
import Foundation

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Read QR codes and barcodes from a camera; print type, payload and corners.")

    @Option(help: "The camera's unique ID (see `avtool devices`; default: the default camera).")
    var camera: String?

    @Option(help: "Comma-separated code types (\(Self.names.keys.sorted().joined(separator: ","))); default: every readable one.")
    var types: String?

    @Flag(help: "Stop after the first code.")
    var once = false

    @Option(help: "Stop after this many seconds.")
    var duration: Double = 10

    static let names: [String: AVMetadataObject.ObjectType] = [
        "qr": .qr, "ean13": .ean13, "ean8": .ean8, "upce": .upce, "code39": .code39, "code39mod43": .code39Mod43,
        "code93": .code93, "code128": .code128, "i2of5": .interleaved2of5, "itf14": .itf14, "codabar": .codabar,
        "databar": .gs1DataBar, "databarexpanded": .gs1DataBarExpanded, "pdf417": .pdf417, "aztec": .aztec,
        "datamatrix": .dataMatrix,
    ]

    func run() throws {
        let device: AVCaptureDevice?
        if let camera { device = AVCaptureDevice(uniqueID: camera) } else { device = AVCaptureDevice.default(for: .video) }
        guard let device else {
            FileHandle.standardError.write(Data("avtool: no camera\(camera.map { " with the unique ID \($0)" } ?? ""): see `avtool devices`\n".utf8))
            throw ExitCode(2)
        }
        let session = AVCaptureSession()
        let input: AVCaptureDeviceInput
        do {
            input = try AVCaptureDeviceInput(device: device)
        } catch {
            FileHandle.standardError.write(Data("avtool: \(device.localizedName): \(errorText(error))\n".utf8))
            throw ExitCode(2)
        }
        let output = AVCaptureMetadataOutput()
        session.beginConfiguration()
        guard session.canAddInput(input) else { throw ValidationError("the camera cannot be added to a session") }
        session.addInput(input)
        guard session.canAddOutput(output) else { throw ValidationError("a metadata output cannot be added") }
        session.addOutput(output)
        session.commitConfiguration()

        let available = output.availableMetadataObjectTypes
        var wanted = available
        if let types {
            wanted = []
            for name in types.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
                guard let type = Self.names[name] else { throw ValidationError("unknown code type \(name)") }
                guard available.contains(type) else {
                    throw ValidationError("\(name) cannot be read on Linux (zbar does not read it): see docs/COMPATIBILITY.md")
                }
                wanted.append(type)
            }
        }
        let reader = CodePrinter(once: once)
        output.setMetadataObjectsDelegate(reader, queue: DispatchQueue(label: "avtool.scan"))
        output.metadataObjectTypes = wanted
        session.startRunning()
        _ = reader.done.wait(timeout: .now() + duration)
        session.stopRunning()
        if !reader.sawCode { throw ExitCode(1) }
    }
}

/// Prints each new set of codes in view.
final class CodePrinter: NSObject, AVCaptureMetadataOutputObjectsDelegate, @unchecked Sendable {
    let once: Bool
    let done = DispatchSemaphore(value: 0)
    private(set) var sawCode = false
    private var last: [String] = []

    init(once: Bool) {
        self.once = once
    }

    func metadataOutput(_ output: AVCaptureMetadataOutput, didOutput metadataObjects: [AVMetadataObject],
                        from connection: AVCaptureConnection) {
        let codes = metadataObjects.compactMap { $0 as? AVMetadataMachineReadableCodeObject }
        let lines = codes.map { code -> String in
            let name = Scan.names.first { $0.value == code.type }?.key ?? code.type.rawValue
            let corners = code.corners.map { String(format: "%.4f,%.4f", $0.x, $0.y) }.joined(separator: " ")
            return "\(name)\t\(code.stringValue ?? "")\t\(corners)"
        }
        let payloads = codes.map { "\($0.type.rawValue)|\($0.stringValue ?? "")" }.sorted()
        guard payloads != last else { return }
        last = payloads
        guard !lines.isEmpty, !(once && sawCode) else { return }
        for line in lines { print(line) }
        fflush(nil)
        sawCode = true
        if once { done.signal() }
    }
}
