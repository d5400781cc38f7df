/// What a path does to each datagram: the impairments of one direction of a
/// link (netem's vocabulary). Every random choice comes from the emulator's
/// seeded generator, so a run is reproducible from its seed.
public struct LinkConditions: Sendable, Equatable {
    /// One-way propagation delay.
    public var delay: Duration
    /// Extra uniform random delay 0…jitter per datagram (which also reorders).
    public var jitter: Duration
    /// Probability a datagram is lost.
    public var loss: Double
    /// Probability a datagram arrives twice.
    public var duplication: Double
    /// Probability a datagram is held back by `reorderDelay`, so that the
    /// ones sent after it overtake it.
    public var reorder: Double
    public var reorderDelay: Duration
    /// Bytes per second the sender's link carries (serialization delay); nil
    /// for unlimited.
    public var bandwidth: Int?
    /// Bytes waiting for the link beyond which datagrams are tail-dropped
    /// (only with `bandwidth`).
    public var queueLimit: Int
    /// Largest datagram the path carries; larger ones are dropped (IPv4 with
    /// DF set, no fragmentation).
    public var mtu: Int?

    public init(delay: Duration = .zero, jitter: Duration = .zero, loss: Double = 0, duplication: Double = 0,
                reorder: Double = 0, reorderDelay: Duration = .milliseconds(10), bandwidth: Int? = nil,
                queueLimit: Int = 64 * 1024, mtu: Int? = nil) {
        self.delay = delay
        self.jitter = jitter
        self.loss = loss
        self.duplication = duplication
        self.reorder = reorder
        self.reorderDelay = reorderDelay
        self.bandwidth = bandwidth
        self.queueLimit = queueLimit
        self.mtu = mtu
    }

    public static let perfect = LinkConditions()
    /// 10 % loss, 5 % duplication, 10 % reordering, 50 ms ± 20 ms.
    public static let hostile = LinkConditions(delay: .milliseconds(50), jitter: .milliseconds(20), loss: 0.10,
                                               duplication: 0.05, reorder: 0.10)
}

/// One datagram on its way, or arrived.
public struct EmulatedDatagram<Address: Hashable & Sendable>: Sendable {
    public var bytes: [UInt8]
    public var source: Address
    public var destination: Address
    /// When it arrives.
    public var at: Duration

    public init(bytes: [UInt8], source: Address, destination: Address, at: Duration) {
        self.bytes = bytes
        self.source = source
        self.destination = destination
        self.at = at
    }
}

/// A deterministic datagram network on a manual clock: the one simulated
/// network of the tests (ICE, TURN, DTLS, SCTP, PeerConnection).
///
/// `send` applies the path's `LinkConditions` (loss, duplication, reordering,
/// delay and jitter, the sender's bandwidth and queue, MTU) and schedules the
/// copies that survive; `popDue` hands them out in arrival order once `now`
/// has reached them. The emulator never calls the endpoints: the test owns
/// the loop (deliver, fire timers, collect transmits) and decides what
/// "arriving" means (a NAT in between is a `NAT` the test consults).
public final class NetworkEmulator<Address: Hashable & Sendable> {
    public var now: Duration
    public var rng: SeededRandom
    /// Conditions of every path without its own entry in `paths`.
    public var conditions: LinkConditions
    /// Conditions of particular directions (source, destination).
    public var paths: [Path: LinkConditions] = [:]
    /// Addresses whose traffic is dropped both ways while listed (a cut cable).
    public var severed: Set<Address> = []
    /// Senders whose datagrams queue on another sender's link (the key
    /// sends through the value's bottleneck, `bandwidth` and `queueLimit`
    /// of its own path): flows that compete for one bottleneck.
    public var sharedLinks: [Address: Address] = [:]
    public private(set) var sent = 0
    public private(set) var dropped = 0

    public struct Path: Hashable, Sendable {
        public var source: Address
        public var destination: Address
        public init(_ source: Address, _ destination: Address) {
            self.source = source
            self.destination = destination
        }
    }

    /// In arrival order (time, then the order they were scheduled).
    private var queue: [(datagram: EmulatedDatagram<Address>, sequence: Int)] = []
    private var head = 0
    private var sequence = 0
    /// When each sender's link is free again (bandwidth model).
    private var linkFreeAt: [Address: Duration] = [:]

    public init(seed: UInt64, conditions: LinkConditions = .perfect, now: Duration = .zero) {
        rng = SeededRandom(seed: seed)
        self.conditions = conditions
        self.now = now
    }

    public func conditions(from source: Address, to destination: Address) -> LinkConditions {
        paths[Path(source, destination)] ?? conditions
    }

    /// Puts a datagram on the wire at `now`.
    public func send(_ bytes: [UInt8], from source: Address, to destination: Address) {
        sent += 1
        let path = conditions(from: source, to: destination)
        if severed.contains(source) || severed.contains(destination) { return drop() }
        if let mtu = path.mtu, bytes.count > mtu { return drop() }
        var departure = now
        if let bandwidth = path.bandwidth, bandwidth > 0 {
            let link = sharedLinks[source] ?? source
            let free = max(now, linkFreeAt[link] ?? now)
            let backlog = (free - now) / .seconds(1) * Double(bandwidth)
            if backlog + Double(bytes.count) > Double(path.queueLimit) { return drop() }
            departure = free + .nanoseconds(Int64(bytes.count) * 1_000_000_000 / Int64(bandwidth))
            linkFreeAt[link] = departure
        }
        if rng.chance(path.loss) { return drop() }
        let copies = rng.chance(path.duplication) ? 2 : 1
        for _ in 0..<copies {
            var at = departure + path.delay + rng.duration(upTo: path.jitter)
            if rng.chance(path.reorder) { at += path.reorderDelay }
            schedule(EmulatedDatagram(bytes: bytes, source: source, destination: destination, at: at))
        }
    }

    /// Schedules a datagram exactly as given (no impairments): a reliable
    /// stream's bytes, or a test's own injection.
    public func schedule(_ datagram: EmulatedDatagram<Address>) {
        sequence += 1
        let key = (datagram.at, sequence)
        // Binary search for the first later entry, among those not yet delivered.
        var low = head, high = queue.count
        while low < high {
            let mid = (low + high) / 2
            if (queue[mid].datagram.at, queue[mid].sequence) <= key { low = mid + 1 } else { high = mid }
        }
        queue.insert((datagram, sequence), at: low)
    }

    /// When the next datagram arrives; nil when none is in flight.
    public var nextArrival: Duration? { head < queue.count ? queue[head].datagram.at : nil }

    public var inFlight: Int { queue.count - head }

    /// The next datagram that has arrived by `now`, in arrival order.
    public func popDue() -> EmulatedDatagram<Address>? {
        guard head < queue.count, queue[head].datagram.at <= now else { return nil }
        let datagram = queue[head].datagram
        head += 1
        if head == queue.count || head > 4096 {
            queue.removeFirst(head)
            head = 0
        }
        guard !severed.contains(datagram.source), !severed.contains(datagram.destination) else {
            drop()
            return popDue()
        }
        return datagram
    }

    /// Moves the clock to `time` (never backwards).
    public func advance(to time: Duration) { now = max(now, time) }

    private func drop() { dropped += 1 }
}

extension SeededRandom {
    /// True with probability `p` (0…1).
    public mutating func chance(_ p: Double) -> Bool {
        p > 0 && Double(next() % 1_000_000) < p * 1_000_000
    }

    /// A uniform duration in 0…`limit` (microsecond steps).
    public mutating func duration(upTo limit: Duration) -> Duration {
        let micros = limit.components.seconds * 1_000_000 + limit.components.attoseconds / 1_000_000_000_000
        guard micros > 0 else { return .zero }
        return .microseconds(Int64.random(in: 0...micros, using: &self))
    }
}
