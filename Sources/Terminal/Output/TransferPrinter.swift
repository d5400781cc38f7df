import ChatClient
import FileTransfer
import Glibc
import Wire

/// Prints `FileTransfers` updates for `chatcli send` and `receive`: one JSON
/// event per line with `--json` (`offer`, `progress`, `file_done`,
/// `transfer_done`, `error`; WireProtocol.md §4), otherwise sentences on
/// stderr and, on a terminal, a progress bar redrawn in place. Names from
/// the peer are sanitized before they reach the terminal.
public final class TransferPrinter {
    let jsonMode: Bool
    let jsonFD: Int32
    let bar: Bool
    var barShown = false

    /// `jsonFD`: where JSON events go (stderr when stdout carries a received file).
    public init(jsonMode: Bool, jsonFD: Int32 = 1, terminal: Bool = isatty(2) == 1) {
        self.jsonMode = jsonMode
        self.jsonFD = jsonFD
        bar = !jsonMode && terminal
    }

    /// `member`: in a group, the member the transfer is with (`"member"`, `"member_name"` in JSON).
    public func print(_ update: FileTransfers.Update, member: (id: String, name: String)? = nil) {
        if jsonMode {
            guard case .object(var fields)? = Self.json(update) else { return }
            if let member { fields += [("member", .string(member.id)), ("member_name", .string(member.name))] }
            Output.write(JSON.object(fields).serialized + "\n", to: jsonFD)
            return
        }
        if case .progress(_, _, let done, let total, let rate, let eta) = update {
            guard bar else { return }
            Output.write("\r\u{1B}[K" + Self.barLine(done: done, total: total, rate: rate, eta: eta), to: 2)
            barShown = true
            return
        }
        guard let sentence = Self.sentence(update) else { return }
        clearBar()
        Output.write(sentence + "\n", to: 2)
    }

    /// Writes a line outside the bar (a question, a chat event).
    public func clearBar() {
        if barShown { Output.write("\r\u{1B}[K", to: 2) }
        barShown = false
    }

    static func barLine(done: UInt64, total: UInt64?, rate: Double?, eta: Duration?) -> String {
        var parts: [String] = []
        if let total {
            let fraction = total == 0 ? 1 : min(1, Double(done) / Double(total))
            let width = 24
            let filled = Int(fraction * Double(width))
            parts.append("[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]")
            parts.append("\(Int(fraction * 100))%")
            parts.append(ProgressMeter.bytes(done) + " of " + ProgressMeter.bytes(total))
        } else {
            parts.append(ProgressMeter.bytes(done))
        }
        if let rate { parts.append(ProgressMeter.bytes(UInt64(rate)) + "/s") }
        if let eta { parts.append(ProgressMeter.clock(eta) + " left") }
        return parts.joined(separator: "  ")
    }

    public static func describe(_ offer: TransferOffer) -> String {
        let name = TerminalText.sanitize(offer.name)
        let size = offer.isStream ? "size not known in advance" : ProgressMeter.bytes(offer.totalSize)
        guard offer.isFolder else { return "\(name) (\(size))" }
        let files = offer.fileCount == 1 ? "1 file" : "\(offer.fileCount) files"
        let folders = offer.folderCount == 0 ? "" : ", \(offer.folderCount) folder\(offer.folderCount == 1 ? "" : "s")"
        return "the folder \(name) (\(files)\(folders), \(size))"
    }

    static func sentence(_ update: FileTransfers.Update) -> String? {
        switch update {
        case .offered(_, let offer): return "Your peer offers \(describe(offer))."
        case .sending(_, let offer, let skipped):
            let left = skipped.isEmpty ? "" : "\nLeft out (\(skipped.count)): " + skipped.prefix(5).map(TerminalText.sanitize).joined(separator: "; ")
                + (skipped.count > 5 ? "; …" : "")
            return "Offering \(describe(offer)); it goes out once your peer accepts." + left
        case .accepted: return "Accepted; transferring."
        case .declined(_, let reason): return "chatcli: your peer declined the transfer (\(TerminalText.sanitize(reason)))."
        case .progress: return nil
        case .fileDone(_, _, let path, let ok):
            return ok ? nil : "chatcli: \(TerminalText.sanitize(path)) arrived corrupted (SHA-256 mismatch); it was not kept."
        case .finished(_, let direction, let location, let mismatches, _, let resumed):
            let verdict = (mismatches == 0 ? "every file verified (SHA-256)" : "\(mismatches) file\(mismatches == 1 ? "" : "s") failed verification")
                + (resumed > 0 ? "; resumed, \(ProgressMeter.bytes(resumed)) were already there" : "")
            if direction == .sending { return "Sent: \(verdict)." }
            return "Received into \(TerminalText.sanitize(location ?? "?")): \(verdict)."
        case .failed(_, _, let reason): return "chatcli: the transfer failed: \(TerminalText.sanitize(reason))."
        case .interrupted(_, let direction):
            return direction == .sending ? "The connection dropped; the transfer resumes when it is back."
                : "The connection dropped; what arrived is kept and the rest comes when your peer sends again."
        }
    }

    static func json(_ update: FileTransfers.Update) -> JSON? {
        func direction(_ d: FileTransfers.Direction) -> JSON { d == .sending ? "send" : "receive" }
        switch update {
        case .offered(let id, let offer): return offerJSON(id, offer, "receive")
        case .sending(let id, let offer, let skipped):
            guard case .object(var members) = offerJSON(id, offer, "send") else { return nil }
            members.append(("skipped", .array(skipped.map(JSON.string))))
            return .object(members)
        case .accepted, .interrupted: return nil
        case .declined(let id, let reason):
            return ["event": "error", "error": "declined", "id": JSON(id), "message": .string("Your peer declined the transfer (\(reason)).")]
        case .progress(let id, let d, let done, let total, let rate, let eta):
            return .object(["event": "progress", "id": JSON(id), "direction": direction(d), "bytes": JSON(done),
                            "total": total.map { JSON($0) } ?? .null,
                            "rate": rate.map { JSON(Int($0)) } ?? .null,
                            "eta_s": eta.map { JSON(Int($0.components.seconds)) } ?? .null])
        case .fileDone(let id, let d, let path, let ok):
            return ["event": "file_done", "id": JSON(id), "direction": direction(d), "path": .string(path), "ok": .bool(ok)]
        case .finished(let id, let d, let location, let mismatches, let transferred, let resumed):
            return .object(["event": "transfer_done", "id": JSON(id), "direction": direction(d),
                            "location": location.map(JSON.string) ?? .null, "mismatches": JSON(mismatches),
                            "bytes_transferred": JSON(transferred), "bytes_resumed": JSON(resumed)])
        case .failed(let id, let d, let reason):
            return ["event": "error", "error": "transfer_failed", "id": JSON(id), "direction": direction(d), "message": .string(reason)]
        }
    }

    static func offerJSON(_ id: Int, _ offer: TransferOffer, _ direction: String) -> JSON {
        .object(["event": "offer", "id": JSON(id), "direction": .string(direction), "name": .string(offer.name),
                 "size": offer.isStream ? .null : JSON(offer.totalSize),
                 "files": JSON(Int(offer.fileCount)), "folders": JSON(Int(offer.folderCount)), "folder": .bool(offer.isFolder)])
    }
}
