// Opening a decoder for a demuxer's stream: the one place that maps FFmpeg's answer
// (no decoder for the codec, parameters it refuses) onto a MediaError.
internal import CFFmpeg

extension Demuxer {
    /// A decoder for `stream` (`threads` 0: one per core). No decoder for the codec in this
    /// FFmpeg build is `.decoderNotFound`; a decoder that refuses the stream's parameters is
    /// `.other`, both with FFmpeg's code.
    package func makeDecoder(stream: StreamInfo, threads: Int = 0) throws(MediaError) -> Decoder {
        let timeBase = stream.timeBase
        let result: Result<Decoder, FFmpegError> = try withCodecParameters(stream: stream.index) { parameters in
            do throws(FFmpegError) {
                return .success(try Decoder(parameters: parameters, timeBase: timeBase, threads: threads))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let decoder):
            return decoder
        case .failure(let error) where error.code == Decoder.decoderNotFound:
            throw .decoderNotFound(code: error.code, message: "no decoder for the \(stream.codecName) codec")
        case .failure(let error):
            throw .other(code: error.code, message: "cannot open the \(stream.codecName) decoder: \(error.message)")
        }
    }
}
