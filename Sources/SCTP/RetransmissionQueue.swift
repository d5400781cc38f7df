/// A DATA chunk sent and not yet cumulatively acknowledged.
struct OutstandingChunk {
    var flags: UInt8
    var streamID: UInt16
    var streamSequence: UInt16
    var ppid: UInt32
    var payload: ArraySlice<UInt8>
    var sentAt: Duration
    var transmissions = 1
    /// Acknowledged by a gap block (may still be renege'd in theory; we trust it).
    var gapAcked = false
    /// Counted in flight size.
    var inFlight = true
    var missIndications = 0
    var needsRetransmit = false
    /// Fast retransmit happens once per chunk; later losses are T3's job.
    var fastRetransmitted = false
    /// The delivery-rate state when it was last sent.
    var delivery = DeliveryStamp()

    var size: Int { payload.count }
}

/// Outstanding chunks indexed by TSN. TSNs are consecutive from the
/// cumulative ack point, so a ring of entries with a base TSN gives O(1)
/// lookup and O(acked) removal without dictionaries.
struct RetransmissionQueue {
    private var items: [OutstandingChunk] = []
    private var head = 0
    /// TSN of the oldest outstanding chunk (cumulative ack + 1).
    private(set) var firstTSN: UInt32
    /// Payload bytes of chunks not yet cumulatively acknowledged.
    private(set) var outstandingBytes = 0

    init(initialTSN: UInt32) { firstTSN = initialTSN }

    var count: Int { items.count - head }
    var isEmpty: Bool { head == items.count }
    var nextTSN: UInt32 { firstTSN &+ UInt32(truncatingIfNeeded: count) }
    var lastTSN: UInt32 { nextTSN &- 1 }

    mutating func append(_ chunk: OutstandingChunk) {
        items.append(chunk)
        outstandingBytes += chunk.size
    }

    /// Storage index of `tsn`, nil if it is not outstanding.
    @inline(__always) func index(of tsn: UInt32) -> Int? {
        let d = Int(tsn &- firstTSN)
        return d < count ? head + d : nil
    }

    /// Iteration bounds over storage indices, oldest first.
    var indices: Range<Int> { head..<items.count }

    @inline(__always) func tsn(at index: Int) -> UInt32 { firstTSN &+ UInt32(truncatingIfNeeded: index - head) }

    subscript(index: Int) -> OutstandingChunk {
        get { items[index] }
        _modify { yield &items[index] }
    }

    /// Removes the oldest chunk.
    mutating func popFirst() -> OutstandingChunk? {
        guard head < items.count else { return nil }
        let c = items[head]
        head += 1
        firstTSN &+= 1
        outstandingBytes -= c.size
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 4096 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return c
    }
}
