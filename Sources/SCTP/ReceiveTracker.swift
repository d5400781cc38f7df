/// Which peer TSNs arrived: the cumulative TSN plus the set above it, from
/// which SACK gap blocks and duplicate reports are built (RFC 9260 §6.2).
struct ReceiveTracker {
    private(set) var cumulativeTSN: UInt32
    /// The TSNs received above the cumulative TSN, as disjoint runs
    /// (first and last TSN) in ascending order, none adjacent to another or
    /// to the cumulative TSN: the gap blocks themselves, kept as they change
    /// so a SACK costs the blocks it lists, not a sort of every TSN held.
    private var runs: [(first: UInt32, last: UInt32)] = []
    private(set) var duplicates: [UInt32] = []
    /// Gap blocks are 16-bit offsets, so nothing further ahead is accepted.
    static let maxAhead: UInt32 = 65000

    init(peerInitialTSN: UInt32) { cumulativeTSN = peerInitialTSN &- 1 }

    var hasGaps: Bool { !runs.isEmpty }

    /// Distance above the cumulative TSN (serial arithmetic).
    private func offset(_ tsn: UInt32) -> UInt32 { tsn &- cumulativeTSN }

    /// Index of the first run whose last TSN is at or above `tsn`.
    private func firstRun(endingAtOrAbove tsn: UInt32) -> Int {
        let d = offset(tsn)
        var low = 0, high = runs.count
        while low < high {
            let mid = (low + high) / 2
            if offset(runs[mid].last) < d { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private func holds(_ tsn: UInt32) -> Bool {
        let i = firstRun(endingAtOrAbove: tsn)
        return i < runs.count && offset(runs[i].first) <= offset(tsn)
    }

    /// Whether `tsn` would be new (not yet received, within reach).
    func isNew(_ tsn: UInt32) -> Bool {
        let d = offset(tsn)
        return d != 0 && d <= Self.maxAhead && !holds(tsn)
    }

    func isTooFarAhead(_ tsn: UInt32) -> Bool {
        let d = offset(tsn)
        return d > Self.maxAhead && d < (1 << 31)
    }

    mutating func noteDuplicate(_ tsn: UInt32) {
        if duplicates.count < 32 { duplicates.append(tsn) }
    }

    /// Records a new TSN; returns true when the cumulative TSN advanced.
    @discardableResult
    mutating func receive(_ tsn: UInt32) -> Bool {
        if tsn == cumulativeTSN &+ 1 {
            cumulativeTSN = tsn
            absorbFirstRun()
            return true
        }
        // The common case under loss: the next TSN above the highest run.
        if let last = runs.last, last.last &+ 1 == tsn {
            runs[runs.count - 1].last = tsn
            return false
        }
        let i = firstRun(endingAtOrAbove: tsn)
        if i < runs.count, offset(runs[i].first) <= offset(tsn) { return false }   // held already
        let joinsBelow = i > 0 && runs[i - 1].last &+ 1 == tsn
        let joinsAbove = i < runs.count && tsn &+ 1 == runs[i].first
        switch (joinsBelow, joinsAbove) {
        case (true, true):
            runs[i - 1].last = runs[i].last
            runs.remove(at: i)
        case (true, false): runs[i - 1].last = tsn
        case (false, true): runs[i].first = tsn
        case (false, false): runs.insert((tsn, tsn), at: i)
        }
        return false
    }

    /// The cumulative TSN moved: a run that now follows it is absorbed.
    private mutating func absorbFirstRun() {
        if let first = runs.first, first.first == cumulativeTSN &+ 1 {
            cumulativeTSN = first.last
            runs.removeFirst()
        }
    }

    /// FORWARD TSN: treat everything up to `tsn` as received.
    mutating func forward(to tsn: UInt32) {
        guard tsnLess(cumulativeTSN, tsn) else { return }
        let old = cumulativeTSN
        let reach = tsn &- old
        cumulativeTSN = tsn
        // Runs are ordered by distance from the old cumulative TSN.
        let passed = runs.prefix { ($0.last &- old) <= reach }.count
        runs.removeFirst(passed)
        if let first = runs.first, (first.first &- old) <= reach { runs[0].first = tsn &+ 1 }
        absorbFirstRun()
    }

    mutating func clearDuplicates() { duplicates.removeAll(keepingCapacity: true) }

    /// Gap Ack Blocks for the current state, at most `limit` of them.
    func gapBlocks(limit: Int) -> [GapAckBlock] {
        runs.prefix(max(0, limit)).map {
            GapAckBlock(start: UInt16(truncatingIfNeeded: offset($0.first)), end: UInt16(truncatingIfNeeded: offset($0.last)))
        }
    }
}
