// Core Animation's string-backed types bridge to NSString and CFString as on Apple platforms
// (`CAMediaTimingFillMode.forwards as NSString`): see CoreFoundationCompat/StringBridging.swift.
import CoreFoundationCompat

extension CALayerContentsGravity: _NSStringBridgedNewtype {}
extension CALayerContentsFilter: _NSStringBridgedNewtype {}
extension CALayerContentsFormat: _NSStringBridgedNewtype {}
extension CALayerCornerCurve: _NSStringBridgedNewtype {}
extension CAValueFunctionName: _NSStringBridgedNewtype {}
extension CAAnimationCalculationMode: _NSStringBridgedNewtype {}
extension CAAnimationRotationMode: _NSStringBridgedNewtype {}
extension CAMediaTimingFunctionName: _NSStringBridgedNewtype {}
extension CAMediaTimingFillMode: _NSStringBridgedNewtype {}
extension CATransitionType: _NSStringBridgedNewtype {}
extension CATransitionSubtype: _NSStringBridgedNewtype {}
extension CAShapeLayerFillRule: _NSStringBridgedNewtype {}
extension CAShapeLayerLineCap: _NSStringBridgedNewtype {}
extension CAShapeLayerLineJoin: _NSStringBridgedNewtype {}
extension CAGradientLayerType: _NSStringBridgedNewtype {}
extension CATextLayerTruncationMode: _NSStringBridgedNewtype {}
extension CATextLayerAlignmentMode: _NSStringBridgedNewtype {}
