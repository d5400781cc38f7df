import FileTransfer
import Signaling

/// Files in a group: every pair runs a `FileTransfers` of its own, so an
/// offer to the group is one transfer per member, each accepted or declined
/// by that member alone, and a slow or declining member holds back nobody
/// else's. Transfer numbers are the group's: member k's are k·1000+1, k·1000+2, …
extension GroupSession {
    static let transferBlock = 1000

    /// Offers what `makeSource` reads to every member (or to `member`): each
    /// pair reads it through a source of its own.
    public func offer(_ makeSource: () throws(TransferError) -> any TransferSource, skipped: [String] = [],
                      to member: MemberID?, now: Duration) {
        advance(now)
        defer { drain() }
        let targets = member.map { [$0] } ?? order
        let pairs = targets.compactMap { id in members[id]?.pair.map { (id, $0) } }.filter { $0.1.transfers != nil }
        guard !pairs.isEmpty else {
            emit(.notSent(code: "nobody_here", message: "Nobody else is in the group room yet (or any more): nothing was offered."))
            return
        }
        for (_, pair) in pairs {
            let source: any TransferSource
            do {
                source = try makeSource()
            } catch {
                emit(.notSent(code: "unreadable", message: "Cannot send: \(error.message)."))
                return
            }
            pair.handle(.send(source, skipped: skipped), now: now)
        }
    }

    /// `/accept`, `/decline`, `/cancel` of a group transfer number.
    public func handleTransfer(_ request: ChatSession.TransferRequest, now: Duration) {
        advance(now)
        let id: Int
        switch request {
        case .send: return
        case .accept(let n), .decline(let n, _), .cancel(let n, _): id = n
        }
        guard let member = memberOf(transfer: id) else { return }
        members[member]?.pair?.handle(request, now: now)
        drain()
    }

    /// The member a transfer number belongs to.
    public func memberOf(transfer id: Int) -> MemberID? {
        let index = id / Self.transferBlock - 1
        return order.indices.contains(index) ? order[index] : nil
    }

    /// Its name, for "bob offers …".
    public func memberName(transfer id: Int) -> String? { memberOf(transfer: id).flatMap { members[$0]?.name } }

    /// The member a transfer is with: its id and name.
    public func member(transfer id: Int) -> (id: String, name: String)? {
        guard let member = memberOf(transfer: id), let name = members[member]?.name else { return nil }
        return (member.rawValue, name)
    }

    /// Every pair's transfers, for what the prompt and `/accept` show.
    public var fileTransfers: [FileTransfers] { pairs.compactMap(\.transfers) }

    /// A new pair gets its transfers (numbered in its block), when the driver provides them.
    func attachTransfers(to pair: ChatSession, index: Int) {
        guard let makeTransfers else { return }
        let files = makeTransfers()
        files.nextID = (index + 1) * Self.transferBlock + 1
        pair.attach(files)
    }
}
