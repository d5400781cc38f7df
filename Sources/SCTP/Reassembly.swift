/// A message delivered to the application.
struct ReassembledMessage {
    var streamID: UInt16
    var ppid: UInt32
    var bytes: [UInt8]
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
struct ReassemblyQueue {
    struct OrderedStream {
        var expectedSSN: UInt16 = 0
        var pending: [UInt16: PartialMessage] = [:]
    }

    private var ordered: [UInt16: OrderedStream] = [:]
    /// Fragments of unordered multi-chunk messages, by TSN.
    private var unordered: [UInt32: DataChunk] = [:]
    /// Bytes held here, counted against the receive window.
    private(set) var bufferedBytes = 0
    let maxMessageSize: Int

    init(maxMessageSize: Int) { self.maxMessageSize = maxMessageSize }

    /// Adds a new (non-duplicate) chunk and appends any deliverable messages.
    mutating func add(_ chunk: DataChunk, into out: inout [ReassembledMessage]) {
        if chunk.isUnordered {
            if chunk.isBeginning && chunk.isEnding {
                out.append(ReassembledMessage(streamID: chunk.streamID, ppid: chunk.ppid, bytes: Array(chunk.userData)))
            } else {
                addUnorderedFragment(chunk, into: &out)
            }
            return
        }
        // Taken out and put back, not copied: a copy would share the
        // dictionaries below, and the first write would copy them whole
        // (every fragment of a message would copy all earlier ones).
        var stream = ordered.removeValue(forKey: chunk.streamID) ?? OrderedStream()
        defer { ordered[chunk.streamID] = stream }
        // Fast path: the next expected single-chunk message.
        if chunk.isBeginning && chunk.isEnding && chunk.streamSequence == stream.expectedSSN && stream.pending.isEmpty {
            out.append(ReassembledMessage(streamID: chunk.streamID, ppid: chunk.ppid, bytes: Array(chunk.userData)))
            stream.expectedSSN &+= 1
            return
        }
        // Stale SSN (already delivered or skipped): drop.
        if ssnLess(chunk.streamSequence, stream.expectedSSN) { return }
        var partial = PartialMessage()
        var existed = false
        if let held = stream.pending.removeValue(forKey: chunk.streamSequence) {
            partial = held
            existed = true
        }
        guard partial.bytes + chunk.userData.count <= maxMessageSize + 65536 else {
            if existed { stream.pending[chunk.streamSequence] = partial }
            return
        }
        partial.add(chunk)
        bufferedBytes += chunk.userData.count
        stream.pending[chunk.streamSequence] = partial
        deliverReady(&stream, streamID: chunk.streamID, into: &out)
    }

    private mutating func deliverReady(_ stream: inout OrderedStream, streamID: UInt16, into out: inout [ReassembledMessage]) {
        while let p = stream.pending[stream.expectedSSN], p.isComplete {
            stream.pending[stream.expectedSSN] = nil
            bufferedBytes -= p.bytes
            out.append(ReassembledMessage(streamID: streamID, ppid: p.ppid, bytes: p.assemble()))
            stream.expectedSSN &+= 1
        }
    }

    private mutating func addUnorderedFragment(_ chunk: DataChunk, into out: inout [ReassembledMessage]) {
        guard unordered[chunk.tsn] == nil else { return }
        unordered[chunk.tsn] = chunk
        bufferedBytes += chunk.userData.count
        // Walk to both ends of the run containing this fragment.
        var first = chunk.tsn
        var limit = maxMessageSize / 16 + 2
        while let c = unordered[first], !c.isBeginning, limit > 0 {
            first &-= 1
            limit -= 1
        }
        guard let head = unordered[first], head.isBeginning else { return }
        var last = chunk.tsn
        while let c = unordered[last], !c.isEnding, limit > 0 {
            last &+= 1
            limit -= 1
        }
        guard let tail = unordered[last], tail.isEnding else { return }
        var bytes: [UInt8] = []
        var t = first
        while true {
            if let c = unordered.removeValue(forKey: t) {
                bytes.append(contentsOf: c.userData)
                bufferedBytes -= c.userData.count
            }
            if t == last { break }
            t &+= 1
        }
        out.append(ReassembledMessage(streamID: head.streamID, ppid: head.ppid, bytes: bytes))
    }

    /// FORWARD TSN (RFC 3758 §3.6): drop fragments at or below `newCumulativeTSN`
    /// and move the listed ordered streams past the skipped sequence numbers.
    mutating func skip(to newCumulativeTSN: UInt32, streams: [ForwardTSNChunk.Skipped], into out: inout [ReassembledMessage]) {
        for (tsn, c) in unordered where tsnLessOrEqual(tsn, newCumulativeTSN) {
            unordered[tsn] = nil
            bufferedBytes -= c.userData.count
        }
        for s in streams {
            var stream = ordered[s.streamID] ?? OrderedStream()
            while ssnLessOrEqual(stream.expectedSSN, s.streamSequence) {
                if let p = stream.pending.removeValue(forKey: stream.expectedSSN) {
                    bufferedBytes -= p.bytes
                    if p.isComplete { out.append(ReassembledMessage(streamID: s.streamID, ppid: p.ppid, bytes: p.assemble())) }
                }
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
            deliverReady(&stream, streamID: id, into: &out)
            ordered[id] = stream
        }
    }
}
