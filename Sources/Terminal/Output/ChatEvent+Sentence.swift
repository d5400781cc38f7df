import ChatClient
/// The sentences a person reads for each event, shared by the plain
/// (stdout/stderr) printer and the interactive chat.
extension ChatEvent {
    /// The `server` of a `code` event for a chat on the local network: the peer joins with `--lan`.
    public static let lanInvite = "lan"

    /// Nil when there is nothing to say (`closed`: the sentence before it says why).
    public var sentence: String? {
        switch self {
        case .code(let code, let expires, let server):
            let validity = expires.flatMap(Timestamp.parseISO8601).map { " (valid until \(Timestamp.local($0)))" } ?? ""
            let option = server.map { $0 == Self.lanInvite ? " --lan" : " --server \($0)" } ?? ""
            return "Your code: \(code)\(validity)\nOn the other machine, run:  chatcli join \(code)\(option)"
        case .waiting: return "Waiting for your peer to join…"
        case .peerJoined: return "Your peer is here."
        case .peerLeft: return "Your peer left the chat."
        case .peerAway: return "Your peer lost its connection; what you type waits for them to come back."
        case .peerBack: return "Your peer is back."
        case .peerBehind(let limit): return Self.behindSentence(who: "Your peer", limit: limit)
        case .peerCaughtUp(let missed): return Self.caughtUpSentence(who: "Your peer", missed: missed)
        case .gap(let lines): return Self.gapSentence(from: "your peer", lines: lines)
        case .peerNotAnswering(let wait):
            let until = Timestamp.local(afterSeconds: wait).map { " (until \($0))" } ?? ""
            return "Your peer is not answering (its app may be frozen or its machine asleep): chatcli waits \(wait) s more\(until), then gives up."
        case .undelivered(let n): return "chatcli: " + Self.undeliveredSentence(n)
        case .notice(let text): return text
        case .error(let e): return "chatcli: \(e.message)"
        case .refused(_, let message): return "chatcli: \(message)"
        case .closed, .controlReady, .control: return nil
        case .progress(let text): return text
        case .ice(let path, _, _, _): return "Found a \(path == "relay" ? "relayed" : "direct") path to your peer; securing it…"
        case .connected(let info, let auth):
            let how = info.path == "relay" ? "through a relay" : "directly"
            let rtt = info.rttMilliseconds.map { ", round trip \($0) ms" } ?? ""
            let connected = "Connected \(how) (\(info.local) ↔ \(info.remote)\(rtt)), end-to-end encrypted"
            if auth == .pake { return connected + ", verified by code." }
            if auth == .words { return connected + ", verified: you compared the safety words (\(info.sas)) with this peer." }
            return connected + ".\n"
                + "Safety words: \(info.sas) — read them to your peer; if theirs differ, someone is in the middle."
        case .reconnected(let info, let outage, _):
            let how = info.path == "relay" ? "through a relay" : "directly"
            let down = outage.map { " after \($0.milliseconds / 1000) s" } ?? ""
            return "Reconnected \(how)\(down) (\(info.local) ↔ \(info.remote)); nothing was lost."
        case .message(let text): return "peer: \(TerminalText.sanitize(text))"
        case .unproven(let sas, let reason):
            return "\(reason.explanation) Nothing is sent or shown until you accept this peer.\nSafety words: \(sas)"
        case .notSent(_, let message): return "chatcli: \(message)"
        case .member(_, let name, let event): return Self.memberSentence(name: DisplayName.clean(name) ?? "A member", event)
        }
    }

    /// A group member's event, said with its name (peer text, cleaned).
    static func memberSentence(name who: String, _ event: ChatEvent) -> String? {
        switch event {
        case .message(let text): return "\(who): \(TerminalText.sanitize(text))"
        case .peerJoined: return "\(who) joined."
        case .peerLeft: return "\(who) left the chat."
        case .peerAway: return "\(who) lost its connection; what you type waits for them to come back."
        case .peerBack: return "\(who) is back."
        case .peerBehind(let limit): return Self.behindSentence(who: who, limit: limit)
        case .peerCaughtUp(let missed): return Self.caughtUpSentence(who: who, missed: missed)
        case .gap(let lines): return Self.gapSentence(from: who, lines: lines)
        case .peerNotAnswering(let wait): return "\(who) is not answering; chatcli waits \(wait) s more for them."
        case .connected(let info, let auth):
            let how = info.path == "relay" ? "through a relay" : "directly"
            if auth == .pake { return "Connected to \(who) \(how), verified by code." }
            return "Connected to \(who) \(how); not verified by the code. Safety words with \(who): \(info.sas)"
        case .unproven(let sas, _):
            return "The code did not prove \(who): nothing crosses between you. Safety words with \(who): \(sas)"
        case .closed, .controlReady, .control, .ice: return nil
        default: return event.sentence.map { "\(who): \($0)" }
        }
    }

    static func behindSentence(who: String, limit: Int) -> String {
        "\(who) is more than \(limit >> 20) MiB behind you: your lines stop reaching them until they catch up "
            + "(the others still get every line), and they will be told how many they missed."
    }

    static func caughtUpSentence(who: String, missed: Int) -> String {
        "\(who) caught up; \(lineCount(missed)) you typed meanwhile did not reach them, and they were told."
    }

    static func gapSentence(from who: String, lines: Int) -> String {
        "\(lineCount(lines)) from \(who) did not reach you here: you fell too far behind them."
    }

    static func lineCount(_ n: Int) -> String { n == 1 ? "1 line" : "\(n) lines" }

    /// Results go to stdout, progress and errors to stderr.
    var isResult: Bool {
        switch self {
        case .code, .peerJoined, .peerLeft, .peerAway, .peerBack, .peerNotAnswering, .connected, .reconnected, .message, .gap: return true
        case .member(_, _, let event): return event.isResult
        default: return false
        }
    }
}
