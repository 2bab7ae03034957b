// swift-tools-version: 6.0
// A small client of this package, written the way published media code is (only
// `import AVFoundation`), that `avtool bench --only debug` builds twice — debug and release — to
// show how much slower the frameworks are when a user runs their tool with `swift run`.
import PackageDescription

let package = Package(
    name: "DebugClient",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "AVFoundationLinux", path: "../..")],
    targets: [
        .executableTarget(name: "DebugClient",
                          dependencies: [.product(name: "AVFoundation", package: "AVFoundationLinux")]),
    ]
)
