/// A message delivered to the application, or in its place the news that
/// it was discarded as too large (`tooLarge`, no bytes), in stream order.
struct ReassembledMessage {
    var streamID: UInt16
    var ppid: UInt32
    var bytes: [UInt8]
    var tooLarge = false

    static func discarded(on streamID: UInt16) -> ReassembledMessage {
        ReassembledMessage(streamID: streamID, ppid: 0, bytes: [], tooLarge: true)
    }
}

/// Fragments of one message being rebuilt. Fragments carry consecutive
/// TSNs, so the message is complete once its first (B) and last (E) TSNs are
/// known and every TSN between them is present.
struct PartialMessage {
    var fragments: [UInt32: ArraySlice<UInt8>] = [:]
    var firstTSN: UInt32?
    var lastTSN: UInt32?
    var ppid: UInt32 = 0
    var bytes = 0

    /// What it holds, counted against the receive window.
    var cost: Int { bytes + fragments.count * ReassemblyQueue.chunkOverhead }

    var isComplete: Bool {
        guard let f = firstTSN, let l = lastTSN, tsnLessOrEqual(f, l) else { return false }
        return Int(l &- f) + 1 == fragments.count
    }

    mutating func add(_ chunk: DataChunk) {
        guard fragments[chunk.tsn] == nil else { return }
        fragments[chunk.tsn] = chunk.userData
        bytes += chunk.userData.count
        if chunk.isBeginning { firstTSN = chunk.tsn; ppid = chunk.ppid }
        if chunk.isEnding { lastTSN = chunk.tsn }
    }

    func assemble() -> [UInt8] {
        guard let f = firstTSN, let l = lastTSN else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(bytes)
        var t = f
        while true {
            if let s = fragments[t] { out.append(contentsOf: s) }
            if t == l { break }
            t &+= 1
        }
        return out
    }
}

/// Per-stream reassembly and ordering (RFC 9260 §6.5, §6.6, §6.9).
///
/// A message larger than `maxMessageSize` (the `a=max-message-size` we
/// advertise) is discarded, not buffered: its fragments are already
/// acknowledged (their TSNs were received), so the sender will never send it
/// again, and holding its SSN open would stop the stream for good. Instead
/// the SSN is skipped, as a FORWARD TSN would skip it, later fragments of
/// that message are dropped as they come, and a `tooLarge` entry takes its
/// place in the output so the peer and the user can be told.
struct ReassemblyQueue {
    struct OrderedStream {
        var expectedSSN: UInt16 = 0
        var pending: [UInt16: PartialMessage] = [:]
        /// SSNs at or after `expectedSSN` whose message was too large and is
        /// skipped when its turn comes.
        var discarded: Set<UInt16> = []
    }

    /// An unordered message being discarded whose last (E) fragment has not
    /// come yet: every TSN up to `reach` since its first was one of its
    /// fragments, so the next TSN is one too, unless it begins a new message.
    struct DiscardedRun {
        var reach: UInt32
    }

    private var ordered: [UInt16: OrderedStream] = [:]
    /// Fragments of unordered multi-chunk messages, by TSN.
    private var unordered: [UInt32: DataChunk] = [:]
    private var unorderedDiscards: [DiscardedRun] = []
    /// At most this many unordered messages are being discarded at once;
    /// past it the oldest is forgotten (its later fragments are then held
    /// like any others, within the receive window, and found too large again
    /// if they ever join up with a first fragment).
    static let maxUnorderedDiscards = 16
    /// Bytes held here with `chunkOverhead` per chunk, counted against the
    /// receive window.
    private(set) var bufferedBytes = 0
    /// What holding one chunk costs besides its bytes: its entry here, and
    /// its share of the packet it came in (its bytes are a slice of it).
    /// Without it, a window's worth of 1-byte chunks would hold millions of
    /// entries: hundreds of megabytes for a 4 MiB window.
    static let chunkOverhead = 64

    static func cost(_ chunk: DataChunk) -> Int { chunk.userData.count + chunkOverhead }
    let maxMessageSize: Int

    init(maxMessageSize: Int) { self.maxMessageSize = maxMessageSize }

    /// Chunks held (for tests and diagnostics).
    var heldChunks: Int { unordered.count + ordered.values.reduce(0) { $0 + $1.pending.values.reduce(0) { $0 + $1.fragments.count } } }

    /// Adds a new (non-duplicate) chunk and appends any deliverable messages.
    mutating func add(_ chunk: DataChunk, into out: inout [ReassembledMessage]) {
        if chunk.isUnordered {
            addUnordered(chunk, into: &out)
            return
        }
        // Taken out and put back, not copied: a copy would share the
        // dictionaries below, and the first write would copy them whole
        // (every fragment of a message would copy all earlier ones).
        var stream = ordered.removeValue(forKey: chunk.streamID) ?? OrderedStream()
        defer { ordered[chunk.streamID] = stream }
        // Fast path: the next expected single-chunk message.
        if chunk.isBeginning && chunk.isEnding && chunk.streamSequence == stream.expectedSSN && stream.pending.isEmpty
            && stream.discarded.isEmpty && chunk.userData.count <= maxMessageSize
        {
            out.append(ReassembledMessage(streamID: chunk.streamID, ppid: chunk.ppid, bytes: Array(chunk.userData)))
            stream.expectedSSN &+= 1
            return
        }
        // Stale SSN (already delivered or skipped), or a message being discarded: drop.
        if ssnLess(chunk.streamSequence, stream.expectedSSN) || stream.discarded.contains(chunk.streamSequence) { return }
        var partial = stream.pending.removeValue(forKey: chunk.streamSequence) ?? PartialMessage()
        guard partial.bytes + chunk.userData.count <= maxMessageSize else {
            bufferedBytes -= partial.cost
            stream.discarded.insert(chunk.streamSequence)
            deliverReady(&stream, streamID: chunk.streamID, into: &out)
            return
        }
        partial.add(chunk)
        bufferedBytes += Self.cost(chunk)
        stream.pending[chunk.streamSequence] = partial
        deliverReady(&stream, streamID: chunk.streamID, into: &out)
    }

    private mutating func deliverReady(_ stream: inout OrderedStream, streamID: UInt16, into out: inout [ReassembledMessage]) {
        while true {
            if stream.discarded.remove(stream.expectedSSN) != nil {
                out.append(.discarded(on: streamID))
                stream.expectedSSN &+= 1
                continue
            }
            guard let p = stream.pending[stream.expectedSSN], p.isComplete else { return }
            stream.pending[stream.expectedSSN] = nil
            bufferedBytes -= p.cost
            out.append(ReassembledMessage(streamID: streamID, ppid: p.ppid, bytes: p.assemble()))
            stream.expectedSSN &+= 1
        }
    }

    private mutating func addUnordered(_ chunk: DataChunk, into out: inout [ReassembledMessage]) {
        if let i = unorderedDiscards.firstIndex(where: { $0.reach &+ 1 == chunk.tsn }) {
            if chunk.isBeginning {
                // The discarded message ended just before: this one is new.
                unorderedDiscards.remove(at: i)
            } else {
                unorderedDiscards[i].reach = chunk.tsn
                if chunk.isEnding || !absorbDiscarded(at: i) { unorderedDiscards.remove(at: i) }
                return
            }
        }
        if chunk.isBeginning && chunk.isEnding {
            out.append(ReassembledMessage(streamID: chunk.streamID, ppid: chunk.ppid, bytes: Array(chunk.userData)))
        } else {
            addUnorderedFragment(chunk, into: &out)
        }
    }

    private mutating func addUnorderedFragment(_ chunk: DataChunk, into out: inout [ReassembledMessage]) {
        guard unordered[chunk.tsn] == nil else { return }
        unordered[chunk.tsn] = chunk
        bufferedBytes += Self.cost(chunk)
        // Walk to both ends of the run containing this fragment, counting
        // its bytes: fragments of one message have consecutive TSNs.
        var bytes = chunk.userData.count
        var first = chunk.tsn
        var limit = maxMessageSize / 16 + 2
        while let c = unordered[first], !c.isBeginning, let before = unordered[first &- 1], limit > 0 {
            first &-= 1
            bytes += before.userData.count
            limit -= 1
        }
        var last = chunk.tsn
        while let c = unordered[last], !c.isEnding, let after = unordered[last &+ 1], limit > 0 {
            last &+= 1
            bytes += after.userData.count
            limit -= 1
        }
        guard let head = unordered[first], head.isBeginning else { return }
        if bytes > maxMessageSize || limit == 0 {
            // Too large: drop what is here, and what is still to come of it.
            discardUnordered(from: first, to: last)
            out.append(.discarded(on: head.streamID))
            return
        }
        guard let tail = unordered[last], tail.isEnding else { return }
        out.append(ReassembledMessage(streamID: head.streamID, ppid: head.ppid, bytes: removeUnordered(from: first, to: last)))
    }

    /// Drops the unordered message whose fragments `first...last` are here
    /// (consecutive TSNs), and, through `unorderedDiscards`, what is still
    /// to come of it.
    private mutating func discardUnordered(from first: UInt32, to last: UInt32) {
        let ended = unordered[last]?.isEnding ?? true
        removeUnordered(from: first, to: last)
        guard !ended else { return }
        if unorderedDiscards.count >= Self.maxUnorderedDiscards { unorderedDiscards.removeFirst() }
        unorderedDiscards.append(DiscardedRun(reach: last))
        if !absorbDiscarded(at: unorderedDiscards.count - 1) { unorderedDiscards.removeLast() }
    }

    /// Drops the fragments already here that continue discarded run `i`
    /// (they came ahead of a gap); false once its last fragment was among them.
    private mutating func absorbDiscarded(at i: Int) -> Bool {
        while let next = unordered[unorderedDiscards[i].reach &+ 1], !next.isBeginning {
            unordered[next.tsn] = nil
            bufferedBytes -= Self.cost(next)
            unorderedDiscards[i].reach = next.tsn
            if next.isEnding { return false }
        }
        return true
    }

    /// Removes fragments `first...last` and returns their bytes in order.
    @discardableResult
    private mutating func removeUnordered(from first: UInt32, to last: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        var t = first
        while true {
            if let c = unordered.removeValue(forKey: t) {
                bytes.append(contentsOf: c.userData)
                bufferedBytes -= Self.cost(c)
            }
            if t == last { break }
            t &+= 1
        }
        return bytes
    }

    /// FORWARD TSN (RFC 3758 §3.6): drop fragments at or below `newCumulativeTSN`
    /// and move the listed ordered streams past the skipped sequence numbers.
    mutating func skip(to newCumulativeTSN: UInt32, streams: [ForwardTSNChunk.Skipped], into out: inout [ReassembledMessage]) {
        for (tsn, c) in unordered where tsnLessOrEqual(tsn, newCumulativeTSN) {
            unordered[tsn] = nil
            bufferedBytes -= Self.cost(c)
        }
        unorderedDiscards.removeAll { tsnLessOrEqual($0.reach, newCumulativeTSN) }
        for s in streams {
            var stream = ordered[s.streamID] ?? OrderedStream()
            while ssnLessOrEqual(stream.expectedSSN, s.streamSequence) {
                if let p = stream.pending.removeValue(forKey: stream.expectedSSN) {
                    bufferedBytes -= p.cost
                    if p.isComplete { out.append(ReassembledMessage(streamID: s.streamID, ppid: p.ppid, bytes: p.assemble())) }
                }
                if stream.discarded.remove(stream.expectedSSN) != nil { out.append(.discarded(on: s.streamID)) }
                stream.expectedSSN &+= 1
            }
            deliverReady(&stream, streamID: s.streamID, into: &out)
            ordered[s.streamID] = stream
        }
    }

    /// Incoming stream reset (RFC 6525 §5.2.2): sequence numbers restart at 0.
    /// An empty list means every stream.
    mutating func resetStreams(_ ids: [UInt16], into out: inout [ReassembledMessage]) {
        let targets = ids.isEmpty ? Array(ordered.keys) : ids
        for id in targets {
            guard var stream = ordered[id] else { continue }
            stream.expectedSSN = 0
            stream.discarded = []
            deliverReady(&stream, streamID: id, into: &out)
            ordered[id] = stream
        }
    }
}
