// AVAssetImageGenerator.Images: the asynchronous sequence `images(for:)` returns.
import CoreGraphics
import CoreMedia
import Foundation

extension AVAssetImageGenerator {
    /// An asynchronous sequence of the images generated for a list of times: one element per
    /// requested time, in the order the times were given. Iteration ends early when the
    /// iterating task is cancelled.
    public struct Images: AsyncSequence, Sendable {
        /// The outcome of one request.
        @frozen public enum Element: @unchecked Sendable {
            /// The image was generated.
            case success(requestedTime: CMTime, image: CGImage, actualTime: CMTime)
            /// Generation failed.
            case failure(requestedTime: CMTime, error: any Error)

            /// The time the image was requested for.
            public var requestedTime: CMTime {
                switch self {
                case .success(let t, _, _), .failure(let t, _): return t
                }
            }

            /// The image; throws the request's error if generation failed.
            public var image: CGImage {
                get throws {
                    switch self {
                    case .success(_, let image, _): return image
                    case .failure(_, let error): throw error
                    }
                }
            }

            /// The time of the frame the image shows; throws the request's error if generation
            /// failed.
            public var actualTime: CMTime {
                get throws {
                    switch self {
                    case .success(_, _, let time): return time
                    case .failure(_, let error): throw error
                    }
                }
            }
        }

        /// The sequence never fails as a whole: failures are elements.
        public typealias Failure = Never

        let generator: AVAssetImageGenerator
        let times: [CMTime]

        /// Produces the sequence's elements.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let generator: AVAssetImageGenerator
            let times: [CMTime]
            var next = 0

            /// The next element, or nil after the last (or once the task is cancelled).
            public mutating func next() async -> Element? {
                guard next < times.count, !Task.isCancelled else { return nil }
                let time = times[next]
                next += 1
                do {
                    let (image, actual) = try await generator.image(at: time)
                    return .success(requestedTime: time, image: image, actualTime: actual)
                } catch is CancellationError {
                    return nil
                } catch {
                    return .failure(requestedTime: time, error: error)
                }
            }
        }

        /// An iterator over the images.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(generator: generator, times: times)
        }
    }
}
