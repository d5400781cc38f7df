/// A user message waiting to be fragmented into DATA chunks.
struct PendingMessage {
    var streamID: UInt16
    var ppid: UInt32
    var unordered: Bool
    var streamSequence: UInt16
    var bytes: [UInt8]
    var offset = 0
}

/// Messages not yet sent, by stream priority: RFC 8260 §3.4's priority
/// scheduler (a lower value goes first; equal values first come, first
/// served). With DATA chunks the fragments of one message carry
/// consecutive TSNs (RFC 9260 §6.9), so a message once started is
/// finished before a more urgent one goes: a chat line waits for at most
/// one file message, never for the megabytes queued behind it.
/// Fragments are slices of the message's array, so fragmentation copies
/// nothing until the packet is written.
struct SendQueue {
    /// One FIFO per priority in use, most urgent first.
    private var lanes: [(priority: UInt16, fifo: MessageFIFO)] = []
    /// Priority of the message partly sent, which must be finished first.
    private var started: UInt16?
    private(set) var bufferedBytes = 0
    private var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ m: PendingMessage, priority: UInt16 = 0) {
        bufferedBytes += m.bytes.count - m.offset
        count += 1
        if let i = lanes.firstIndex(where: { $0.priority == priority }) {
            lanes[i].fifo.append(m)
            return
        }
        var fifo = MessageFIFO()
        fifo.append(m)
        let at = lanes.firstIndex { $0.priority > priority } ?? lanes.count
        lanes.insert((priority, fifo), at: at)
    }

    /// The lane whose message goes next.
    private var next: Int? {
        if let started, let i = lanes.firstIndex(where: { $0.priority == started }) { return i }
        return lanes.firstIndex { !$0.fifo.isEmpty }
    }

    /// Size of the next fragment, nil when empty.
    func nextFragmentSize(max: Int) -> Int? {
        guard let i = next, let m = lanes[i].fifo.first else { return nil }
        return min(max, m.bytes.count - m.offset)
    }

    /// Takes the next fragment as a DATA chunk without its TSN.
    mutating func takeFragment(max: Int, tsn: UInt32) -> DataChunk? {
        guard let i = next, let (chunk, finished) = lanes[i].fifo.takeFragment(max: max, tsn: tsn) else { return nil }
        bufferedBytes -= chunk.userData.count
        if finished {
            count -= 1
            started = nil
        } else {
            started = lanes[i].priority
        }
        return chunk
    }

    func contains(stream: UInt16) -> Bool {
        lanes.contains { $0.fifo.contains(stream: stream) }
    }
}

/// First in, first out, with the consumed head trimmed in bulk.
struct MessageFIFO {
    private var items: [PendingMessage] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var first: PendingMessage? { head < items.count ? items[head] : nil }

    mutating func append(_ m: PendingMessage) { items.append(m) }

    /// The next fragment, and whether it ends its message.
    mutating func takeFragment(max: Int, tsn: UInt32) -> (DataChunk, Bool)? {
        guard head < items.count else { return nil }
        let start = items[head].offset
        let m = items[head]
        let end = min(m.bytes.count, start + max)
        var flags: UInt8 = m.unordered ? DataChunk.unorderedFlag : 0
        if start == 0 { flags |= DataChunk.beginningFlag }
        if end == m.bytes.count { flags |= DataChunk.endingFlag }
        let chunk = DataChunk(flags: flags, tsn: tsn, streamID: m.streamID, streamSequence: m.streamSequence,
                              ppid: m.ppid, userData: m.bytes[start..<end])
        guard end == m.bytes.count else {
            items[head].offset = end
            return (chunk, false)
        }
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return (chunk, true)
    }

    func contains(stream: UInt16) -> Bool {
        items[head...].contains { $0.streamID == stream }
    }
}
