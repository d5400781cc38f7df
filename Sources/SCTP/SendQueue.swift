/// A user message waiting to be fragmented into DATA chunks.
struct PendingMessage {
    var streamID: UInt16
    var ppid: UInt32
    var unordered: Bool
    var streamSequence: UInt16
    var bytes: [UInt8]
    var offset = 0
}

/// FIFO of messages not yet sent. Fragments are slices of the message's
/// array, so fragmentation copies nothing until the packet is written.
struct SendQueue {
    private var items: [PendingMessage] = []
    private var head = 0
    private(set) var bufferedBytes = 0

    var isEmpty: Bool { head == items.count }

    mutating func append(_ m: PendingMessage) {
        items.append(m)
        bufferedBytes += m.bytes.count - m.offset
    }

    /// Size of the next fragment, nil when empty.
    func nextFragmentSize(max: Int) -> Int? {
        guard head < items.count else { return nil }
        let m = items[head]
        return min(max, m.bytes.count - m.offset)
    }

    /// Takes the next fragment as a DATA chunk without its TSN.
    mutating func takeFragment(max: Int, tsn: UInt32) -> DataChunk? {
        guard head < items.count else { return nil }
        let start = items[head].offset
        let m = items[head]
        let end = min(m.bytes.count, start + max)
        var flags: UInt8 = m.unordered ? DataChunk.unorderedFlag : 0
        if start == 0 { flags |= DataChunk.beginningFlag }
        if end == m.bytes.count { flags |= DataChunk.endingFlag }
        let chunk = DataChunk(flags: flags, tsn: tsn, streamID: m.streamID, streamSequence: m.streamSequence,
                              ppid: m.ppid, userData: m.bytes[start..<end])
        bufferedBytes -= end - start
        if end == m.bytes.count {
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 && head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
        } else {
            items[head].offset = end
        }
        return chunk
    }

    func contains(stream: UInt16) -> Bool {
        items[head...].contains { $0.streamID == stream }
    }
}
