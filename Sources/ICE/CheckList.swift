import STUN
import Wire

/// The check list of the single data component (RFC 8445 §6.1.2) and its
/// triggered-check queue (§6.1.4.1).
struct CheckList: Sendable {
    private(set) var pairs: [CandidatePair] = []
    private(set) var triggered = Deque<Int>()

    subscript(id: Int) -> CandidatePair {
        get { pairs[id] }
        set { pairs[id] = newValue }
    }

    func contains(_ id: Int) -> Bool { pairs.indices.contains(id) }

    func pairID(base: STUNAddress, remote: STUNAddress) -> Int? {
        pairs.firstIndex { $0.local.base == base && $0.remoteAddress == remote }
    }

    /// Adds the pair unless one with the same base and remote address
    /// exists (§6.1.2.4: the higher priority one is kept, and a signalled
    /// candidate replaces a peer-reflexive one, RFC 8838 §11.4). New pairs
    /// start Waiting when no pair of their foundation is being checked, else
    /// Frozen (§6.1.2.6, RFC 8838 §11). Returns the new pair's id.
    @discardableResult
    mutating func add(local: LocalCandidate, remote: ICECandidate, remoteAddress: STUNAddress, limit: Int) -> Int? {
        if let existing = pairID(base: local.base, remote: remoteAddress) {
            if pairs[existing].remote.type == .prflx && remote.type != .prflx || remote.priority > pairs[existing].remote.priority {
                pairs[existing].remote = remote
            }
            return nil
        }
        guard pairs.count < limit else { return nil }
        var pair = CandidatePair(id: pairs.count, local: local, remote: remote, remoteAddress: remoteAddress)
        let foundation = pair.foundation
        let busy = pairs.contains { $0.foundation == foundation && ($0.state == .waiting || $0.state == .inProgress) }
        pair.state = busy ? .frozen : .waiting
        pairs.append(pair)
        return pair.id
    }

    mutating func enqueueTriggered(_ id: Int) {
        guard !triggered.contains(id) else { return }
        triggered.append(id)
    }

    mutating func removeTriggered(_ id: Int) {
        triggered.removeAll { $0 == id }
    }

    /// The pair whose check goes out in the next Ta slot (§6.1.4.2): the
    /// head of the triggered queue, else the highest-priority Waiting pair,
    /// else a Frozen pair unfrozen because nothing of its foundation is
    /// Waiting or In-Progress.
    mutating func nextToCheck(role: ICERole) -> Int? {
        while let id = triggered.popFirst() {
            if pairs[id].state == .waiting || pairs[id].state == .frozen { return id }
        }
        if let id = highest(role: role, where: { $0.state == .waiting }) { return id }
        let active = Set(pairs.filter { $0.state == .waiting || $0.state == .inProgress }.map(\.foundation))
        return highest(role: role) { $0.state == .frozen && !active.contains($0.foundation) }
    }

    /// §7.2.5.3.3: a success unfreezes the pairs of the same foundation.
    mutating func unfreeze(foundation: String) {
        for index in pairs.indices where pairs[index].state == .frozen && pairs[index].foundation == foundation {
            pairs[index].state = .waiting
        }
    }

    func highest(role: ICERole, where predicate: (CandidatePair) -> Bool) -> Int? {
        var best: Int?
        for pair in pairs where predicate(pair) {
            if let current = best, pairs[current].priority(role: role) >= pair.priority(role: role) { continue }
            best = pair.id
        }
        return best
    }

    /// Checks still to send: the scheduler has work.
    var hasPendingChecks: Bool {
        !triggered.isEmpty || pairs.contains { $0.state == .waiting || $0.state == .frozen }
    }

    var hasChecksInFlight: Bool { pairs.contains { $0.state == .inProgress } }

    /// The pairs sending from `base` can carry nothing any more (its
    /// socket or allocation is gone).
    mutating func failPairs(base: STUNAddress) {
        for index in pairs.indices where pairs[index].local.base == base {
            pairs[index].state = .failed
            pairs[index].valid = false
        }
        triggered.removeAll { pairs[$0].local.base == base }
    }

    /// §8.1.2: once a pair is nominated, Waiting and Frozen pairs are
    /// dropped (marked failed here so ids stay stable).
    mutating func pruneAfterNomination() {
        triggered.removeAll()
        for index in pairs.indices where pairs[index].state == .waiting || pairs[index].state == .frozen {
            pairs[index].state = .failed
        }
    }
}
