import Glibc
import Wire

/// Prints chat events: one JSON object per line on stdout with `--json`;
/// otherwise sentences, results on stdout and progress/errors on stderr.
/// Writes go straight to the file descriptor so a pipe sees each line at once.
public final class EventPrinter {
    public let jsonMode: Bool

    public init(jsonMode: Bool) { self.jsonMode = jsonMode }

    public func emit(_ event: ChatEvent) {
        if jsonMode {
            if let json = event.json { Output.write(json.serialized + "\n", to: 1) }
            return
        }
        switch event {
        case .code(let code, _):
            let spaced = "\(code.prefix(3)) \(code.dropFirst(3))"
            Output.write("Your code: \(spaced)\nOn the other machine, run:  chatcli join \(code)\n", to: 1)
        case .waiting: Output.write("Waiting for your peer to join…\n", to: 2)
        case .peerJoined: Output.write("Your peer is here.\n", to: 1)
        case .peerLeft: Output.write("Your peer left the chat.\n", to: 1)
        case .error(let e): Output.write("chatcli: \(e.message)\n", to: 2)
        case .closed: break   // the sentence before it (left, peer left, error) says why
        case .progress(let text): Output.write(text + "\n", to: 2)
        case .ice(let path, _, _, _): Output.write("Found a \(path == "relay" ? "relayed" : "direct") path to your peer; securing it…\n", to: 2)
        case .connected(let info):
            let how = info.path == "relay" ? "through a relay" : "directly"
            let rtt = info.rttMilliseconds.map { ", round trip \($0) ms" } ?? ""
            Output.write("Connected \(how) (\(info.local) ↔ \(info.remote)\(rtt)), end-to-end encrypted.\n", to: 1)
            Output.write("Safety words: \(info.sas) — read them to your peer; if theirs differ, someone is in the middle.\n", to: 1)
        case .reconnected(let info, let outage):
            let how = info.path == "relay" ? "through a relay" : "directly"
            let down = outage.map { " after \($0.milliseconds / 1000) s" } ?? ""
            Output.write("Reconnected \(how)\(down) (\(info.local) ↔ \(info.remote)); nothing was lost.\n", to: 1)
        case .message(let text): Output.write("peer: \(TerminalText.sanitize(text))\n", to: 1)
        case .notSent(_, let message): Output.write("chatcli: \(message)\n", to: 2)
        }
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
