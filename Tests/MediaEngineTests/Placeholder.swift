import Testing
@testable import MediaEngine
