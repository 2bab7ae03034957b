// swift-tools-version: 6.0
// A client of the project, written the way published AV Foundation code is written (thumbnailers,
// metadata readers, audio extractors, images-to-movie writers, Apple's reader/writer sample
// code). AVFoundationTests/ClientPackageTests builds it with `swift build` and runs it: the same
// sources compile as two executables, one in the Swift 6 language mode and one in Swift 5.
import Foundation
import PackageDescription

// The project, three folders up. A path dependency's identity is its folder's name, which
// differs between checkouts, so it is read here rather than written down.
let projectPath = "../../.."
let project = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent(projectPath).standardizedFileURL.lastPathComponent
let avFoundation = Target.Dependency.product(name: "AVFoundation", package: project)

let package = Package(
    name: "PublishedIdioms",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: projectPath)],
    targets: [
        .executableTarget(name: "PublishedIdioms", dependencies: [avFoundation],
                          swiftSettings: [.swiftLanguageMode(.v6)]),
        // The same files (symbolic links), compiled in the Swift 5 language mode.
        .executableTarget(name: "PublishedIdioms5", dependencies: [avFoundation],
                          swiftSettings: [.swiftLanguageMode(.v5)]),
    ]
)
