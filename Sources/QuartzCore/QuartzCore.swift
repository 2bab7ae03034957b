// QuartzCore (Core Animation): the CALayer tree, its animations and CATransform3D, evaluated at a
// time into a presentation tree (`RenderLayer`) and drawn through CoreGraphics' rasteriser.
// `import QuartzCore` brings Core Graphics and Core Video with it, as on Apple platforms.
@_exported import CoreGraphics
@_exported import CoreVideo
@_exported import Foundation
