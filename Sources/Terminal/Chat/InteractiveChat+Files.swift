import ChatClient
import FileTransfer
import Glibc
import Signaling

/// `/send`, `/accept`, `/decline`, `/cancel` and what transfers report:
/// offers and results as lines above the prompt, progress in the prompt.
extension InteractiveChat {
    func offer(_ raw: String) {
        guard files != nil else {
            show(.error, "File transfer is not available in this chat.")
            return
        }
        var path = raw
        // `/send @NAME PATH`: in a group, to that member only.
        var member: MemberID?
        if path.hasPrefix("@") {
            let name = String(path.dropFirst().prefix { $0 != " " })
            guard let group = manager.group else { return show(.error, "/send @NAME is for group chats: here the file goes to your peer.") }
            guard let id = group.member(named: name) else {
                return show(.error, "Nobody called \(TerminalText.sanitize(name)) is in the group (see /who); nothing was offered.")
            }
            member = id
            path = String(path.dropFirst(name.count + 1).drop { $0 == " " })
            guard !path.isEmpty else { return show(.error, "Type /send @\(TerminalText.sanitize(name)) followed by a file or folder.") }
        }
        while path.count > 1 && path.hasSuffix(" ") { path.removeLast() }
        if path == "~" || path.hasPrefix("~/"), let home = getenv("HOME") { path = String(cString: home) + path.dropFirst() }
        do {
            let source = try DiskSource(path: path)
            do {
                _ = try SafePath(name: source.offer.name)
            } catch {
                show(.error, "\(TerminalText.sanitize(path)) has a name your peer would refuse: \(error).")
                return
            }
            // A group: each member's pair reads the file through its own source.
            if manager.group != nil { return manager.sendFileToGroup(path: path, skipped: source.skipped, to: member) }
            manager.sendFile(source, skipped: source.skipped)
        } catch {
            show(.error, "Cannot send: \(TerminalText.sanitize(error.message)).")
        }
    }

    func answer(_ id: Int?, accept: Bool) {
        guard files != nil, let id = id ?? manager.pendingOffers.last else {
            show(.error, "Your peer has offered nothing to \(accept ? "accept" : "decline").")
            return
        }
        guard manager.pendingOffers.contains(id) else {
            show(.error, "Transfer #\(id) is not waiting for an answer.")
            return
        }
        if accept {
            manager.acceptFile(id)
        } else {
            manager.declineFile(id)
            show(.notice, "Declined #\(id).")
        }
    }

    func cancelTransfer(_ id: Int?) {
        guard files != nil, let id = id ?? manager.activeTransfers.last?.id ?? manager.pendingOffers.last else {
            show(.error, "No transfer is under way.")
            return
        }
        if manager.pendingOffers.contains(id) {
            manager.declineFile(id)
        } else {
            manager.cancelFile(id)
        }
    }

    /// The prompt's part for transfers: each one under way, arrow and percentage first.
    var transferStatus: String {
        guard files != nil else { return "" }
        return manager.activeTransfers.map { t in
            let arrow = t.direction == .sending ? "↑" : "↓"
            var name = TerminalText.sanitize(t.name)
            if name.count > 20 { name = String(name.prefix(19)) + "…" }
            var parts = ["\(arrow) #\(t.id) \(name)"]
            if let fraction = t.meter.fraction { parts.append("\(Int(min(1, fraction) * 100))%") }
            if let rate = t.meter.rate { parts.append(ProgressMeter.bytes(UInt64(rate)) + "/s") }
            if let eta = t.meter.eta { parts.append(ProgressMeter.clock(eta) + " left") }
            return parts.joined(separator: " ")
        }.joined(separator: " · ")
    }

    func transferUpdate(_ update: FileTransfers.Update) {
        // In a group, who the transfer is with; else "your peer".
        let who = manager.transferMember(update.id).map { DisplayName.clean($0.name) ?? "a member" }
        let peer = who ?? "Your peer"
        switch update {
        case .offered(let id, let offer):
            if manager.pendingOffers.contains(id) {
                // In a group several offers may wait: the number says which.
                let number = who == nil ? "" : " \(id)"
                show(.important, "\(peer) offers \(TransferPrinter.describe(offer)) as #\(id): /accept\(number) to receive it, /decline\(number) to refuse.")
            } else {
                show(.important, "\(peer) sends \(TransferPrinter.describe(offer)) as #\(id); receiving.")
            }
        case .sending(let id, let offer, let skipped):
            show(.notice, "Offered \(TransferPrinter.describe(offer)) as #\(id); waiting for \(who ?? "your peer") to accept.")
            if !skipped.isEmpty {
                show(.notice, "Left out (\(skipped.count)): " + skipped.prefix(5).map(TerminalText.sanitize).joined(separator: "; ") + (skipped.count > 5 ? "; …" : ""))
            }
        case .accepted(let id):
            show(.notice, "Transfer #\(id) accepted; progress shows in the prompt.")
        case .declined(let id, let reason):
            show(.error, "\(peer) declined #\(id) (\(TerminalText.sanitize(reason))).")
        case .progress:
            break
        case .fileDone(let id, _, let path, let ok):
            if !ok { show(.error, "#\(id): \(TerminalText.sanitize(path)) arrived corrupted (SHA-256 mismatch) and was not kept.") }
        case .finished(let id, let direction, let location, let mismatches, _, _):
            let verdict = mismatches == 0 ? "verified (SHA-256)" : "\(mismatches) file\(mismatches == 1 ? "" : "s") failed verification"
            if direction == .sending {
                show(mismatches == 0 ? .important : .error, "Sent #\(id)\(who.map { " to \($0)" } ?? ""): \(verdict).")
            } else {
                show(mismatches == 0 ? .important : .error, "Received #\(id) into \(TerminalText.sanitize(location ?? "?")): \(verdict).")
            }
        case .failed(let id, _, let reason):
            show(.error, "Transfer #\(id) failed: \(TerminalText.sanitize(reason)).")
        case .interrupted(let id, let direction):
            show(.notice, direction == .sending ? "Transfer #\(id) was cut off; it resumes when the connection is back."
                 : "Transfer #\(id) was cut off; what arrived is kept and resumes when your peer sends it again.")
        }
        updatePrompt()
    }
}
