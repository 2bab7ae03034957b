// The video composition model: layer instruction ramps evaluated at times (the book's
// dissolve, push and wipe numbers), the get…Ramp getters, instructions and their derived
// values, copies, and the composition's defaults.
@testable import AVFoundation
import CoreGraphics
import CoreMedia
import Foundation
import Testing

/// Times and ranges in seconds, at timescale 600.
enum VC {
    static func t(_ s: Double) -> CMTime { CMTime(value: Int64((s * 600).rounded()), timescale: 600) }
    static func r(_ start: Double, _ end: Double) -> CMTimeRange { CMTimeRange(start: t(start), end: t(end)) }
}

@Suite("Video composition model")
struct VideoCompositionModelTests {
    @Test("dissolve: opacity 1→0 over [4,5) is 0.5 at 4.5, 1 before, 0 after")
    func dissolve() {
        let layer = AVMutableVideoCompositionLayerInstruction()
        layer.trackID = 1
        layer.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: VC.r(4, 5))
        #expect(layer.layerState(at: VC.t(4.5)).opacity == 0.5)
        #expect(layer.layerState(at: VC.t(4.25)).opacity == 0.75)
        #expect(layer.layerState(at: VC.t(3.9)).opacity == 1)
        #expect(layer.layerState(at: VC.t(4)).opacity == 1)
        #expect(layer.layerState(at: VC.t(5)).opacity == 0)
        #expect(layer.layerState(at: VC.t(12)).opacity == 0)
        let state = layer.layerState(at: VC.t(4.5))
        #expect(state.trackID == 1 && state.transform == .identity && state.cropRectangle == nil)
    }

    @Test("push: the from layer is translated by −640 and the to layer by +640 at 4.5 s")
    func push() {
        let from = AVMutableVideoCompositionLayerInstruction(), to = AVMutableVideoCompositionLayerInstruction()
        from.setTransformRamp(fromStart: .identity, toEnd: CGAffineTransform(translationX: -1280, y: 0), timeRange: VC.r(4, 5))
        to.setTransformRamp(fromStart: CGAffineTransform(translationX: 1280, y: 0), toEnd: .identity, timeRange: VC.r(4, 5))
        #expect(from.layerState(at: VC.t(4.5)).transform == CGAffineTransform(translationX: -640, y: 0))
        #expect(to.layerState(at: VC.t(4.5)).transform == CGAffineTransform(translationX: 640, y: 0))
        #expect(from.layerState(at: VC.t(4.25)).transform == CGAffineTransform(translationX: -320, y: 0))
        #expect(to.layerState(at: VC.t(3)).transform == .identity)  // before the first setting
        #expect(to.layerState(at: VC.t(5)).transform == .identity)
        #expect(from.layerState(at: VC.t(9)).transform == CGAffineTransform(translationX: -1280, y: 0))
    }

    @Test("wipe: crop (0,0,1280,720)→(0,720,1280,0) over [4,5) is (0,360,1280,360) at 4.5 s")
    func wipe() {
        let layer = AVMutableVideoCompositionLayerInstruction()
        layer.setCropRectangleRamp(fromStartCropRectangle: CGRect(x: 0, y: 0, width: 1280, height: 720),
                                   toEndCropRectangle: CGRect(x: 0, y: 720, width: 1280, height: 0), timeRange: VC.r(4, 5))
        #expect(layer.layerState(at: VC.t(4.5)).cropRectangle == CGRect(x: 0, y: 360, width: 1280, height: 360))
        #expect(layer.layerState(at: VC.t(3.99)).cropRectangle == nil)
        #expect(layer.layerState(at: VC.t(6)).cropRectangle == CGRect(x: 0, y: 720, width: 1280, height: 0))
    }

    @Test("values set at times hold until the next; a later ramp takes over; same start replaces")
    func steps() {
        let layer = AVMutableVideoCompositionLayerInstruction()
        layer.setOpacity(0.5, at: VC.t(2))
        layer.setOpacityRamp(fromStartOpacity: 0.5, toEndOpacity: 0.8, timeRange: VC.r(4, 6))
        layer.setOpacity(0.3, at: VC.t(7))
        #expect(layer.layerState(at: VC.t(1)).opacity == 1)
        #expect(layer.layerState(at: VC.t(3)).opacity == 0.5)
        #expect(abs(layer.layerState(at: VC.t(5)).opacity - 0.65) < 1e-6)
        #expect(abs(layer.layerState(at: VC.t(6.5)).opacity - 0.8) < 1e-6)
        #expect(layer.layerState(at: VC.t(8)).opacity == 0.3)
        layer.setOpacity(0.9, at: VC.t(7))  // replaces the setting at 7
        #expect(layer.layerState(at: VC.t(8)).opacity == 0.9)
        layer.setOpacity(1.7, at: VC.t(10))
        #expect(layer.layerState(at: VC.t(11)).opacity == 1)  // clamped
        layer.setTransform(CGAffineTransform(scaleX: 2, y: 2), at: VC.t(1))
        #expect(layer.layerState(at: VC.t(0.5)).transform == .identity)
        #expect(layer.layerState(at: VC.t(1)).transform == CGAffineTransform(scaleX: 2, y: 2))
        layer.setCropRectangle(CGRect(x: 1, y: 2, width: 3, height: 4), at: VC.t(2))
        #expect(layer.layerState(at: VC.t(9)).cropRectangle == CGRect(x: 1, y: 2, width: 3, height: 4))
    }

    @Test("get…Ramp: the ramp in effect, else the next one; false past the last; out-parameters")
    func getters() {
        let layer = AVMutableVideoCompositionLayerInstruction()
        var start: Float = -1, end: Float = -1, range = CMTimeRange.invalid
        #expect(!layer.getOpacityRamp(for: .zero, startOpacity: &start, endOpacity: &end, timeRange: &range))
        #expect(start == -1 && end == -1 && range == .invalid)  // untouched when false

        layer.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: VC.r(4, 5))
        #expect(layer.getOpacityRamp(for: VC.t(4.5), startOpacity: &start, endOpacity: &end, timeRange: &range))
        #expect(start == 1 && end == 0 && range == VC.r(4, 5))
        range = .invalid
        #expect(layer.getOpacityRamp(for: VC.t(1), startOpacity: nil, endOpacity: nil, timeRange: &range))  // the next ramp
        #expect(range == VC.r(4, 5))
        #expect(!layer.getOpacityRamp(for: VC.t(5), startOpacity: nil, endOpacity: nil, timeRange: nil))  // past the last

        layer.setOpacity(0.3, at: VC.t(7))  // a flat ramp lasting until the next setting
        #expect(layer.getOpacityRamp(for: VC.t(6), startOpacity: &start, endOpacity: &end, timeRange: &range))
        #expect(start == Float(0.3) && end == Float(0.3) && range.start == VC.t(7) && range.duration == .positiveInfinity)
        layer.setOpacity(0.6, at: VC.t(9))
        #expect(layer.getOpacityRamp(for: VC.t(8), startOpacity: nil, endOpacity: nil, timeRange: &range))
        #expect(range == VC.r(7, 9))

        var from = CGAffineTransform(), to = CGAffineTransform()
        #expect(!layer.getTransformRamp(for: .zero, start: &from, end: &to, timeRange: &range))
        layer.setTransformRamp(fromStart: .identity, toEnd: CGAffineTransform(translationX: -1280, y: 0), timeRange: VC.r(4, 5))
        #expect(layer.getTransformRamp(for: VC.t(4.2), start: &from, end: &to, timeRange: &range))
        #expect(from == .identity && to == CGAffineTransform(translationX: -1280, y: 0) && range == VC.r(4, 5))

        var a = CGRect.null, b = CGRect.null
        layer.setCropRectangleRamp(fromStartCropRectangle: CGRect(x: 0, y: 0, width: 1280, height: 720),
                                   toEndCropRectangle: CGRect(x: 0, y: 720, width: 1280, height: 0), timeRange: VC.r(4, 5))
        #expect(layer.getCropRectangleRamp(for: VC.t(4.9), startCropRectangle: &a, endCropRectangle: &b, timeRange: &range))
        #expect(a == CGRect(x: 0, y: 0, width: 1280, height: 720) && b == CGRect(x: 0, y: 720, width: 1280, height: 0) && range == VC.r(4, 5))
        #expect(!layer.getCropRectangleRamp(for: VC.t(5), startCropRectangle: nil, endCropRectangle: nil, timeRange: nil))
    }

    @Test("layer instructions: init(assetTrack:) takes the track's ID; copies are independent")
    func layerCopies() async throws {
        let (asset, _) = try await ComposedMedia.fifteenSeconds()
        let track = try #require(asset.tracks(withMediaType: .video).last)
        let layer = AVMutableVideoCompositionLayerInstruction(assetTrack: track)
        #expect(layer.trackID == 2)
        #expect(AVMutableVideoCompositionLayerInstruction().trackID == kCMPersistentTrackID_Invalid)
        layer.setOpacity(0.5, at: .zero)
        let frozen = try #require(layer.copy() as? AVVideoCompositionLayerInstruction)
        #expect(!(frozen is AVMutableVideoCompositionLayerInstruction))
        let mutable = try #require(layer.mutableCopy() as? AVMutableVideoCompositionLayerInstruction)
        mutable.setOpacity(0.1, at: .zero)
        mutable.trackID = 7
        layer.setOpacity(0.2, at: .zero)
        #expect(frozen.layerState(at: .zero).opacity == 0.5 && frozen.trackID == 2)
        #expect(mutable.layerState(at: .zero).opacity == Float(0.1) && layer.layerState(at: .zero).opacity == Float(0.2))
    }

    @Test("instructions: defaults, layer order, derived passthrough, required tracks, tweening, copies")
    func instructions() throws {
        let instruction = AVMutableVideoCompositionInstruction()
        #expect(!instruction.timeRange.isValid && instruction.backgroundColor == nil && instruction.layerInstructions.isEmpty)
        #expect(instruction.enablePostProcessing && instruction.passthroughTrackID == kCMPersistentTrackID_Invalid)

        let a = AVMutableVideoCompositionLayerInstruction(), b = AVMutableVideoCompositionLayerInstruction()
        a.trackID = 1
        b.trackID = 2
        instruction.timeRange = VC.r(0, 4)
        instruction.layerInstructions = [a]
        #expect(instruction.passthroughTrackID == 1 && !instruction.containsTweening)
        a.setOpacity(1, at: .zero)  // a value that changes nothing inside the range
        #expect(instruction.passthroughTrackID == 1)
        a.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: VC.r(3, 4))
        #expect(instruction.passthroughTrackID == kCMPersistentTrackID_Invalid && instruction.containsTweening)

        instruction.timeRange = VC.r(4, 5)
        instruction.layerInstructions = [b, a]
        let ids = instruction.requiredSourceTrackIDs  // the class's [NSValue], not the protocol's optional
        #expect(ids.count == 2)
        #expect(ids.compactMap { ($0 as? NSNumber)?.int32Value } == [2, 1])
        let viaProtocol: any AVVideoCompositionInstructionProtocol = instruction
        #expect(viaProtocol.requiredSourceTrackIDs?.compactMap { ($0 as? NSNumber)?.int32Value } == [2, 1])
        #expect(viaProtocol.passthroughTrackID == kCMPersistentTrackID_Invalid && viaProtocol.requiredSourceSampleDataTrackIDs.isEmpty)
        #expect(!viaProtocol.containsTweening)  // a's ramp ended at 4
        #expect(instruction.layerStates(at: VC.t(4.5)).map(\.trackID) == [2, 1])  // front first
        #expect(instruction.layerStates(at: VC.t(4.5)).map(\.opacity) == [1, 0])

        instruction.backgroundColor = CGColor(red: 1, green: 0, blue: 0, alpha: 1)
        let frozen = try #require(instruction.copy() as? AVVideoCompositionInstruction)
        #expect(!(frozen is AVMutableVideoCompositionInstruction))
        a.setOpacity(0.25, at: VC.t(4))
        instruction.timeRange = VC.r(9, 10)
        instruction.enablePostProcessing = false
        #expect(frozen.timeRange == VC.r(4, 5) && frozen.enablePostProcessing && frozen.backgroundColor?.components == [1, 0, 0, 1])
        #expect(frozen.layerStates(at: VC.t(4.5)).map(\.opacity) == [1, 0])  // its layers were copied
        let mutable = try #require(frozen.mutableCopy() as? AVMutableVideoCompositionInstruction)
        mutable.layerInstructions = []
        #expect(frozen.layerInstructions.count == 2)
    }

    @Test("video compositions: Apple's defaults, every property settable, copies independent")
    func compositions() throws {
        let composition = AVMutableVideoComposition()
        #expect(composition.frameDuration == .zero && composition.renderSize == .zero && composition.renderScale == 1)
        #expect(composition.instructions.isEmpty && composition.sourceTrackIDForFrameTiming == kCMPersistentTrackID_Invalid)
        #expect(composition.customVideoCompositorClass == nil && composition.colorPrimaries == nil)
        #expect(composition.colorYCbCrMatrix == nil && composition.colorTransferFunction == nil && composition.sourceSampleDataTrackIDs.isEmpty)

        let instruction = AVMutableVideoCompositionInstruction()
        instruction.timeRange = VC.r(0, 2)
        composition.instructions = [instruction]
        composition.frameDuration = CMTime(value: 1, timescale: 30)
        composition.renderSize = CGSize(width: 1280, height: 720)
        composition.renderScale = 0.5
        composition.sourceTrackIDForFrameTiming = 3
        composition.colorPrimaries = AVVideoColorPrimaries_ITU_R_709_2
        composition.colorYCbCrMatrix = AVVideoYCbCrMatrix_ITU_R_709_2
        composition.colorTransferFunction = AVVideoTransferFunction_ITU_R_709_2
        composition.sourceSampleDataTrackIDs = [4]
        #expect(composition.instruction(at: VC.t(1)) === instruction && composition.instruction(at: VC.t(2)) == nil)

        let frozen = try #require(composition.copy() as? AVVideoComposition)
        #expect(!(frozen is AVMutableVideoComposition))
        instruction.timeRange = VC.r(5, 6)
        composition.renderSize = .zero
        #expect(frozen.instructions.first?.timeRange == VC.r(0, 2) && frozen.renderSize == CGSize(width: 1280, height: 720))
        #expect(frozen.frameDuration == CMTime(value: 1, timescale: 30) && frozen.renderScale == 0.5 && frozen.sourceTrackIDForFrameTiming == 3)
        #expect(frozen.colorPrimaries == AVVideoColorPrimaries_ITU_R_709_2 && frozen.colorYCbCrMatrix == AVVideoYCbCrMatrix_ITU_R_709_2)
        #expect(frozen.colorTransferFunction == AVVideoTransferFunction_ITU_R_709_2 && frozen.sourceSampleDataTrackIDs == [4])
        let again = try #require(frozen.mutableCopy() as? AVMutableVideoComposition)
        again.instructions = []
        #expect(frozen.instructions.count == 1)
    }
}
