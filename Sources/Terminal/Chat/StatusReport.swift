import ChatClient
import FileTransfer
import PeerConnection

/// The `/status` answer: path, candidates, round trip, counters each way,
/// session age and room expiry, one fact per line.
public struct StatusReport: Sendable {
    public var state: String
    /// `host`, `srflx`, `prflx` or `relay`, with each side's candidate (`type address`).
    public var path: (type: String, local: String, remote: String)?
    public var rttMilliseconds: Int?
    public var counters = ChatCounters()
    /// Messages typed that have not reached the peer yet.
    public var waiting = 0
    public var sessionAge: Duration
    public var connectedFor: Duration?
    /// The room's expiry as the server gave it (ISO 8601 UTC), when known.
    public var expires: String?
    public var peerName: String?
    /// Why there is no path although there was one (`your peer left`, `reconnecting`); nil: none yet.
    public var pathGone: String?
    /// File bytes that crossed each way, when this chat moves files.
    public var fileBytes: (sent: UInt64, received: UInt64)?

    public init(state: String, sessionAge: Duration) {
        self.state = state
        self.sessionAge = sessionAge
    }

    public var lines: [String] {
        var out = ["State: \(state)" + (peerName.map { " with \($0)" } ?? "")]
        if let path {
            let kind = path.type == "relay" ? "relayed through a TURN server" : "direct (\(path.type))"
            out.append("Path: \(kind); local \(path.local), remote \(path.remote)")
            out.append("Round trip: " + (rttMilliseconds.map { "\($0) ms" } ?? "not measured yet"))
        } else {
            out.append("Path: " + (pathGone.map { "none now (\($0))" } ?? "none yet"))
        }
        out.append("Sent: \(Self.count(counters.messagesSent, "message")), \(Self.count(counters.bytesSent, "byte"))"
                   + (waiting > 0 ? " (\(waiting) waiting for your peer)" : ""))
        out.append("Received: \(Self.count(counters.messagesReceived, "message")), \(Self.count(counters.bytesReceived, "byte"))")
        if let fileBytes {
            out.append("Files: sent \(Self.bytes(fileBytes.sent)), received \(Self.bytes(fileBytes.received))")
        }
        out.append("Session: started \(Self.age(sessionAge)) ago" + (connectedFor.map { ", connected for \(Self.age($0))" } ?? ""))
        out.append("Room expires: " + (expires.map { TerminalText.sanitize($0) } ?? "unknown (the code's creator sees it)"))
        return out
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// `0 bytes`, `1 byte`, then `ProgressMeter`'s units (`405.5 MB`).
    static func bytes(_ n: UInt64) -> String { n < 1000 ? count(Int(n), "byte") : ProgressMeter.bytes(n) }

    /// `42s`, `5m 07s`, `2h 03m`.
    static func age(_ duration: Duration) -> String {
        let seconds = max(0, Int(duration.components.seconds))
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m " + pad(seconds % 60) + "s" }
        return "\(seconds / 3600)h " + pad(seconds / 60 % 60) + "m"
    }

    private static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
