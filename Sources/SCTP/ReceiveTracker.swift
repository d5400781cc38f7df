/// Which peer TSNs arrived: the cumulative TSN plus the set above it, from
/// which SACK gap blocks and duplicate reports are built (RFC 9260 §6.2).
struct ReceiveTracker {
    private(set) var cumulativeTSN: UInt32
    private(set) var above: Set<UInt32> = []
    private(set) var duplicates: [UInt32] = []
    /// Gap blocks are 16-bit offsets, so nothing further ahead is accepted.
    static let maxAhead: UInt32 = 65000

    init(peerInitialTSN: UInt32) { cumulativeTSN = peerInitialTSN &- 1 }

    var hasGaps: Bool { !above.isEmpty }

    /// Whether `tsn` would be new (not yet received, within reach).
    func isNew(_ tsn: UInt32) -> Bool {
        let d = tsn &- cumulativeTSN
        return d != 0 && d <= Self.maxAhead && !above.contains(tsn)
    }

    func isTooFarAhead(_ tsn: UInt32) -> Bool {
        let d = tsn &- cumulativeTSN
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
            if !above.isEmpty {
                while above.remove(cumulativeTSN &+ 1) != nil { cumulativeTSN &+= 1 }
            }
            return true
        }
        above.insert(tsn)
        return false
    }

    /// FORWARD TSN: treat everything up to `tsn` as received.
    mutating func forward(to tsn: UInt32) {
        guard tsnLess(cumulativeTSN, tsn) else { return }
        cumulativeTSN = tsn
        if !above.isEmpty {
            above = above.filter { tsnLess(cumulativeTSN, $0) }
            while above.remove(cumulativeTSN &+ 1) != nil { cumulativeTSN &+= 1 }
        }
    }

    mutating func clearDuplicates() { duplicates.removeAll(keepingCapacity: true) }

    /// Gap Ack Blocks for the current state, at most `limit` of them.
    func gapBlocks(limit: Int) -> [GapAckBlock] {
        guard !above.isEmpty else { return [] }
        let offsets = above.map { $0 &- cumulativeTSN }.sorted()
        var blocks: [GapAckBlock] = []
        var start = offsets[0], end = offsets[0]
        for o in offsets.dropFirst() {
            if o == end + 1 {
                end = o
            } else {
                blocks.append(GapAckBlock(start: UInt16(truncatingIfNeeded: start), end: UInt16(truncatingIfNeeded: end)))
                if blocks.count == limit { return blocks }
                start = o
                end = o
            }
        }
        blocks.append(GapAckBlock(start: UInt16(truncatingIfNeeded: start), end: UInt16(truncatingIfNeeded: end)))
        return blocks
    }
}
