// The C-style CGContext functions ported drawing code calls, for paths, strokes, clips, blend
// modes, shadows and transparency layers (as CGContext.swift has them for fills and images).
import Foundation

/// Discards the current path.
public func CGContextBeginPath(_ c: CGContext?) { c?.beginPath() }
/// Starts a new subpath.
public func CGContextMoveToPoint(_ c: CGContext?, _ x: CGFloat, _ y: CGFloat) { c?.move(to: CGPoint(x: x, y: y)) }
/// Adds a line to the current path.
public func CGContextAddLineToPoint(_ c: CGContext?, _ x: CGFloat, _ y: CGFloat) {
    c?.addLine(to: CGPoint(x: x, y: y))
}
/// Adds a cubic Bézier curve to the current path.
public func CGContextAddCurveToPoint(_ c: CGContext?, _ cp1x: CGFloat, _ cp1y: CGFloat, _ cp2x: CGFloat,
                                     _ cp2y: CGFloat, _ x: CGFloat, _ y: CGFloat) {
    c?.addCurve(to: CGPoint(x: x, y: y), control1: CGPoint(x: cp1x, y: cp1y), control2: CGPoint(x: cp2x, y: cp2y))
}
/// Adds a quadratic Bézier curve to the current path.
public func CGContextAddQuadCurveToPoint(_ c: CGContext?, _ cpx: CGFloat, _ cpy: CGFloat, _ x: CGFloat, _ y: CGFloat) {
    c?.addQuadCurve(to: CGPoint(x: x, y: y), control: CGPoint(x: cpx, y: cpy))
}
/// Adds an arc (`clockwise` nonzero: clockwise).
public func CGContextAddArc(_ c: CGContext?, _ x: CGFloat, _ y: CGFloat, _ radius: CGFloat, _ startAngle: CGFloat,
                            _ endAngle: CGFloat, _ clockwise: Int32) {
    c?.addArc(center: CGPoint(x: x, y: y), radius: radius, startAngle: startAngle, endAngle: endAngle,
              clockwise: clockwise != 0)
}
/// Adds an arc tangent to two lines.
public func CGContextAddArcToPoint(_ c: CGContext?, _ x1: CGFloat, _ y1: CGFloat, _ x2: CGFloat, _ y2: CGFloat,
                                   _ radius: CGFloat) {
    c?.addArc(tangent1End: CGPoint(x: x1, y: y1), tangent2End: CGPoint(x: x2, y: y2), radius: radius)
}
/// Adds a rectangle to the current path.
public func CGContextAddRect(_ c: CGContext?, _ rect: CGRect) { c?.addRect(rect) }
/// Adds an ellipse to the current path.
public func CGContextAddEllipseInRect(_ c: CGContext?, _ rect: CGRect) { c?.addEllipse(in: rect) }
/// Adds a path to the current path.
public func CGContextAddPath(_ c: CGContext?, _ path: CGPath?) {
    guard let c, let path else { return }
    c.addPath(path)
}
/// Closes the current subpath.
public func CGContextClosePath(_ c: CGContext?) { c?.closePath() }
/// Fills the current path (winding rule).
public func CGContextFillPath(_ c: CGContext?) { c?.fillPath() }
/// Fills the current path (even-odd rule).
public func CGContextEOFillPath(_ c: CGContext?) { c?.fillPath(using: .evenOdd) }
/// Strokes the current path.
public func CGContextStrokePath(_ c: CGContext?) { c?.strokePath() }
/// Paints the current path.
public func CGContextDrawPath(_ c: CGContext?, _ mode: CGPathDrawingMode) { c?.drawPath(using: mode) }
/// Strokes a rectangle.
public func CGContextStrokeRect(_ c: CGContext?, _ rect: CGRect) { c?.stroke(rect) }
/// Strokes a rectangle with a line width.
public func CGContextStrokeRectWithWidth(_ c: CGContext?, _ rect: CGRect, _ width: CGFloat) { c?.stroke(rect, width: width) }
/// Fills an ellipse.
public func CGContextFillEllipseInRect(_ c: CGContext?, _ rect: CGRect) { c?.fillEllipse(in: rect) }
/// Strokes an ellipse.
public func CGContextStrokeEllipseInRect(_ c: CGContext?, _ rect: CGRect) { c?.strokeEllipse(in: rect) }
/// Sets the line width.
public func CGContextSetLineWidth(_ c: CGContext?, _ width: CGFloat) { c?.setLineWidth(width) }
/// Sets the line cap.
public func CGContextSetLineCap(_ c: CGContext?, _ cap: CGLineCap) { c?.setLineCap(cap) }
/// Sets the line join.
public func CGContextSetLineJoin(_ c: CGContext?, _ join: CGLineJoin) { c?.setLineJoin(join) }
/// Sets the miter limit.
public func CGContextSetMiterLimit(_ c: CGContext?, _ limit: CGFloat) { c?.setMiterLimit(limit) }
/// Sets the stroke colour to a device RGB colour.
public func CGContextSetRGBStrokeColor(_ c: CGContext?, _ red: CGFloat, _ green: CGFloat, _ blue: CGFloat,
                                       _ alpha: CGFloat) {
    c?.setStrokeColor(red: red, green: green, blue: blue, alpha: alpha)
}
/// Sets the stroke colour to a device grey colour.
public func CGContextSetGrayStrokeColor(_ c: CGContext?, _ gray: CGFloat, _ alpha: CGFloat) {
    c?.setStrokeColor(gray: gray, alpha: alpha)
}
/// Sets the stroke colour.
public func CGContextSetStrokeColorWithColor(_ c: CGContext?, _ color: CGColor?) {
    guard let c, let color else { return }
    c.setStrokeColor(color)
}
/// Intersects the clip with the current path (winding rule).
public func CGContextClip(_ c: CGContext?) { c?.clip() }
/// Intersects the clip with the current path (even-odd rule).
public func CGContextEOClip(_ c: CGContext?) { c?.clip(using: .evenOdd) }
/// Intersects the clip with a rectangle.
public func CGContextClipToRect(_ c: CGContext?, _ rect: CGRect) { c?.clip(to: rect) }
/// Intersects the clip with a mask image drawn into `rect`.
public func CGContextClipToMask(_ c: CGContext?, _ rect: CGRect, _ mask: CGImage?) {
    guard let c, let mask else { return }
    c.clip(to: rect, mask: mask)
}
/// The clip's bounding box; `.null` for nil.
@discardableResult
public func CGContextGetClipBoundingBox(_ c: CGContext?) -> CGRect { c?.boundingBoxOfClipPath ?? .null }
/// Sets the blend mode.
public func CGContextSetBlendMode(_ c: CGContext?, _ mode: CGBlendMode) { c?.setBlendMode(mode) }
/// Sets a shadow in the default colour.
public func CGContextSetShadow(_ c: CGContext?, _ offset: CGSize, _ blur: CGFloat) { c?.setShadow(offset: offset, blur: blur) }
/// Sets a shadow in `color` (nil: off).
public func CGContextSetShadowWithColor(_ c: CGContext?, _ offset: CGSize, _ blur: CGFloat, _ color: CGColor?) {
    c?.setShadow(offset: offset, blur: blur, color: color)
}
/// Begins a transparency layer.
public func CGContextBeginTransparencyLayer(_ c: CGContext?, _ auxiliaryInfo: CFDictionary?) {
    c?.beginTransparencyLayer(auxiliaryInfo: auxiliaryInfo)
}
/// Ends a transparency layer.
public func CGContextEndTransparencyLayer(_ c: CGContext?) { c?.endTransparencyLayer() }
/// Draws a linear gradient.
public func CGContextDrawLinearGradient(_ c: CGContext?, _ gradient: CGGradient?, _ startPoint: CGPoint,
                                        _ endPoint: CGPoint, _ options: CGGradientDrawingOptions) {
    guard let c, let gradient else { return }
    c.drawLinearGradient(gradient, start: startPoint, end: endPoint, options: options)
}
/// Draws a radial gradient.
public func CGContextDrawRadialGradient(_ c: CGContext?, _ gradient: CGGradient?, _ startCenter: CGPoint,
                                        _ startRadius: CGFloat, _ endCenter: CGPoint, _ endRadius: CGFloat,
                                        _ options: CGGradientDrawingOptions) {
    guard let c, let gradient else { return }
    c.drawRadialGradient(gradient, startCenter: startCenter, startRadius: startRadius, endCenter: endCenter,
                         endRadius: endRadius, options: options)
}
