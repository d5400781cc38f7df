import Glibc
import ChatClient
import Wire

/// Prints chat events: one JSON object per line on stdout with `--json`;
/// otherwise sentences, results on stdout and progress/errors on stderr.
/// Writes go straight to the file descriptor so a pipe sees each line at once.
public final class EventPrinter {
    public let jsonMode: Bool
    /// The interactive chat takes every event here and draws it itself.
    public var sink: ((ChatEvent) -> Void)?

    public init(jsonMode: Bool) { self.jsonMode = jsonMode }

    public func emit(_ event: ChatEvent) {
        if let sink {
            sink(event)
            return
        }
        if jsonMode {
            if let json = event.json { Output.write(json.serialized + "\n", to: 1) }
            if case .notice(let text) = event { Output.write(text + "\n", to: 2) }   // never on the JSON stdout
            return
        }
        if let sentence = event.sentence { Output.write(sentence + "\n", to: event.isResult ? 1 : 2) }
    }
}

public enum Output {
    /// Writes all of `text`, retrying on EINTR and short writes; gives up
    /// silently if the reader went away (EPIPE), as a CLI should.
    public static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n; continue }
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            return
        }
    }
}
