import ChatClient
import Glibc

/// How the interactive chat draws its lines and prompt: `HH:MM` timestamps,
/// the sender, continuation lines indented; SGR colours only when enabled.
/// Prompt escapes are wrapped in readline's invisible markers (\001 … \002)
/// so it measures the prompt right.
public struct ChatStyle: Sendable {
    public enum Kind: Sendable, Equatable {
        case peer(name: String)
        case own
        case notice
        case important
        case error
    }

    public let colors: Bool

    public init(colors: Bool) { self.colors = colors }

    /// Colours only on a terminal, never with `NO_COLOR` set to anything but
    /// the empty string (no-color.org), nor on a `dumb` terminal.
    public static func colorsWanted(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal else { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }

    /// One printed entry: `14:03 alice: hi`, a notice as `14:03 -- text`.
    /// Every further line of a multi-line text is indented under the first.
    public func line(time: String, _ kind: Kind, _ text: String) -> String {
        let head: String
        switch kind {
        case .peer: head = paint(Self.head(kind), "1;36")
        case .own: head = paint(Self.head(kind), "1;32")
        case .notice, .important, .error: head = paint(Self.head(kind), "2")
        }
        let body: String
        switch kind {
        case .peer, .own, .notice: body = text
        case .important: body = paint(text, "1")
        case .error: body = paint(text, "31")
        }
        let indent = String(repeating: " ", count: Self.continuationColumn(time: time))
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        return ([paint(time, "2") + " " + head + " " + lines[0]] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
    }

    /// The sender as shown: `alice:`, `you:`, `--`.
    static func head(_ kind: Kind) -> String {
        switch kind {
        case .peer(let name): return name + ":"
        case .own: return "you:"
        case .notice, .important, .error: return "--"
        }
    }

    /// The column where an entry's text starts: after `HH:MM alice: `.
    public static func textColumn(time: String, _ kind: Kind) -> Int {
        DisplayWidth.of(time) + 1 + DisplayWidth.of(head(kind)) + 1
    }

    /// The column where each further line of an entry starts (under the sender).
    public static func continuationColumn(time: String) -> Int { time.count + 1 }

    /// `[connected · direct · verified] > `, `[peer away · 2 waiting] > ` and
    /// the like: `waiting` counts the messages typed that have not reached
    /// the peer yet.
    /// `transfers`: file transfers under way, e.g. `↑ big.iso 45% · 12.0 MB/s · 0:04 left`.
    public func prompt(_ phase: ChatPhase, reconnecting: Bool, verified: Bool, waiting: Int = 0, transfers: String = "") -> String {
        let color: String
        switch phase {
        case .connected, .group: color = "32"
        case .pathLost, .peerAway, .peerLeft, .unproven, .peerNotAnswering: color = "31"
        case .connecting where reconnecting: color = "31"
        case .leaving: color = "2"
        default: color = "33"
        }
        let label = Self.label(phase, reconnecting: reconnecting, verified: verified) + (waiting > 0 ? " · \(waiting) waiting" : "")
            + (transfers.isEmpty ? "" : " · " + transfers)
        return promptPaint("[" + label + "]", color) + " > "
    }

    /// The state in words: waiting for peer, connecting, connected · direct, reconnecting…
    public static func label(_ phase: ChatPhase, reconnecting: Bool, verified: Bool) -> String {
        switch phase {
        case .starting: return "connecting to server"
        case .waitingForPeer: return "waiting for peer"
        case .connecting: return reconnecting ? "reconnecting" : "connecting"
        case .pathLost: return "reconnecting"
        case .unproven: return "unverified peer · /verify ok to start"
        case .peerAway: return "peer away"
        case .peerNotAnswering: return "peer not answering"
        case .peerLeft: return "peer left"
        case .connected(let path): return "connected · " + (path == "relay" ? "relay" : "direct") + (verified ? " · verified" : "")
        case .leaving: return "leaving"
        case .group(let members): return "group · \(members) here · /who"
        }
    }

    private func paint(_ text: String, _ sgr: String) -> String {
        colors ? "\u{1B}[\(sgr)m" + text + "\u{1B}[0m" : text
    }

    private func promptPaint(_ text: String, _ sgr: String) -> String {
        colors ? "\u{01}\u{1B}[\(sgr)m\u{02}" + text + "\u{01}\u{1B}[0m\u{02}" : text
    }
}

/// The local wall-clock time as `HH:MM`.
public enum ClockTime {
    public static func now() -> String {
        var t = time(nil)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return "--:--" }
        return format(hour: Int(parts.tm_hour), minute: Int(parts.tm_min))
    }

    public static func format(hour: Int, minute: Int) -> String {
        (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }
}
