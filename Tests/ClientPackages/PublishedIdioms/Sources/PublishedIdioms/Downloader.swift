// Media code that fetches what it processes uses URLSession with nothing but `import AVFoundation`
// (on Apple platforms that import brings all of Foundation).
import AVFoundation

final class MediaDownloader {
    let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 30
        session = URLSession(configuration: configuration)
    }

    func request(for remote: URL) -> URLRequest {
        var request = URLRequest(url: remote)
        request.httpMethod = "GET"
        request.setValue("bytes=0-", forHTTPHeaderField: "Range")
        return request
    }

    static func run() {
        let downloader = MediaDownloader()
        let request = downloader.request(for: URL(string: "https://example.com/media/clip.mp4")!)
        let fileType = UTType(filenameExtension: request.url?.pathExtension ?? "")
        print("network method=\(request.httpMethod ?? "-") range=\(request.value(forHTTPHeaderField: "Range") ?? "-")"
              + " timeout=\(downloader.session.configuration.timeoutIntervalForRequest)"
              + " type=\(fileType?.identifier ?? "-")")
    }
}
