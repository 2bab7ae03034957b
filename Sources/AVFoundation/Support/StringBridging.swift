// AV Foundation's string-backed types bridge to NSString and CFString as on Apple platforms
// (`AVFileType.heic as CFString`, `AVMediaType.video as NSString`): see
// CoreFoundationCompat/StringBridging.swift.
import CoreFoundationCompat

extension AVFileType: _NSStringBridgedNewtype {}
extension AVMediaType: _NSStringBridgedNewtype {}
extension AVMediaCharacteristic: _NSStringBridgedNewtype {}
extension AVVideoCodecType: _NSStringBridgedNewtype {}
extension AVLayerVideoGravity: _NSStringBridgedNewtype {}
extension AVOutputSettingsPreset: _NSStringBridgedNewtype {}
extension AVMetadataKey: _NSStringBridgedNewtype {}
extension AVMetadataKeySpace: _NSStringBridgedNewtype {}
extension AVMetadataIdentifier: _NSStringBridgedNewtype {}
extension AVMetadataFormat: _NSStringBridgedNewtype {}
extension AVMetadataExtraAttributeKey: _NSStringBridgedNewtype {}
extension AVCaptureSession.Preset: _NSStringBridgedNewtype {}
extension AVCaptureDevice.DeviceType: _NSStringBridgedNewtype {}
extension AVMetadataObject.ObjectType: _NSStringBridgedNewtype {}
extension AVAssetImageGenerator.ApertureMode: _NSStringBridgedNewtype {}
extension AVPlayer.WaitingReason: _NSStringBridgedNewtype {}
extension AVPlayerItemLegibleOutput.TextStylingResolution: _NSStringBridgedNewtype {}
