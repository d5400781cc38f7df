import TestSupport

/// One direction of an ordered, reliable byte stream on the world's emulated
/// network: what TCP gives the HTTP and WebSocket legs, and what SCTP gives a
/// data channel. Every message and every acknowledgement is a datagram
/// through the `NetworkEmulator`, so the path's delay, jitter, reordering,
/// duplication and loss all apply. A lost datagram is not a lost message:
/// the sender sends everything unacknowledged again when its retransmission
/// timer runs out (doubling each time, RFC 6298 §5 and RFC 9260 §6.3.3), and
/// a message that arrives before an earlier one waits for it. So the session
/// above sees a bad path only as delay (head-of-line blocking), never as a
/// gap, a repeat or a swap: that is what its transports promise it.
final class ReliableStream {
    let id: Int
    let source: String
    let destination: String
    unowned let world: World

    /// Delivery of each message at the receiver, until acknowledged; and
    /// whether the message counts in `onAcknowledged` (a `chat` message does,
    /// the `ctl` messages and the close sharing its stream do not).
    private var unacknowledged: [Int: (counted: Bool, deliver: () -> Void)] = [:]
    private var sent = 0
    private var acknowledged = 0
    /// The receiver's side: messages delivered, and later ones already here.
    private var delivered = 0
    private var early: Set<Int> = []

    static let initialRTO: Duration = .seconds(1)
    static let maxRTO: Duration = .seconds(60)
    private var rto = initialRTO
    private var retransmitAt: Duration?
    private var timerArmed = false

    /// Datagrams to or from a process that is gone are dropped; nothing is
    /// sent again once either end is gone.
    var senderAlive: () -> Bool = { true }
    var receiverAlive: () -> Bool = { true }
    /// The sender learns that this many more counted messages arrived.
    var onAcknowledged: (Int) -> Void = { _ in }

    init(id: Int, from source: String, to destination: String, world: World) {
        self.id = id
        self.source = source
        self.destination = destination
        self.world = world
    }

    var isIdle: Bool { acknowledged == sent }

    func send(counted: Bool = false, _ deliver: @escaping () -> Void) {
        unacknowledged[sent] = (counted, deliver)
        world.transmit(.data, stream: id, sequence: sent, from: source, to: destination)
        sent += 1
        if retransmitAt == nil { retransmitAt = world.now + rto }
        armTimer()
    }

    func dataArrived(_ sequence: Int) {
        guard receiverAlive() else { return }
        if sequence >= delivered { early.insert(sequence) }
        while early.remove(delivered) != nil, let message = unacknowledged[delivered] {
            delivered += 1
            message.deliver()
        }
        // Cumulative, and sent for duplicates too (their ack may have been lost).
        world.transmit(.ack, stream: id, sequence: delivered, from: destination, to: source)
    }

    func ackArrived(_ cumulative: Int) {
        guard senderAlive(), cumulative > acknowledged else { return }
        let counted = (acknowledged..<cumulative).filter { unacknowledged.removeValue(forKey: $0)?.counted == true }.count
        acknowledged = cumulative
        rto = Self.initialRTO
        retransmitAt = isIdle ? nil : world.now + rto
        if counted > 0 { onAcknowledged(counted) }
    }

    private func armTimer() {
        guard !timerArmed, let due = retransmitAt else { return }
        timerArmed = true
        world.at(due - world.now) { [self] in
            timerArmed = false
            guard let due = retransmitAt, senderAlive(), receiverAlive() else { return }
            if world.now >= due {
                for sequence in acknowledged..<sent {
                    world.transmit(.data, stream: id, sequence: sequence, from: source, to: destination)
                }
                rto = min(rto * 2, Self.maxRTO)
                retransmitAt = world.now + rto
            }
            armTimer()
        }
    }
}

/// What a stream datagram carries: which stream, data or ack, and a number.
enum StreamDatagram {
    case data, ack

    static func encode(_ kind: StreamDatagram, stream: Int, sequence: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: kind == .data ? 0 : 1, count: 9)
        for i in 0..<4 {
            bytes[1 + i] = UInt8(truncatingIfNeeded: stream >> (8 * i))
            bytes[5 + i] = UInt8(truncatingIfNeeded: sequence >> (8 * i))
        }
        return bytes
    }

    static func decode(_ bytes: [UInt8]) -> (kind: StreamDatagram, stream: Int, sequence: Int) {
        var stream = 0, sequence = 0
        for i in 0..<4 {
            stream |= Int(bytes[1 + i]) << (8 * i)
            sequence |= Int(bytes[5 + i]) << (8 * i)
        }
        return (bytes[0] == 0 ? .data : .ack, stream, sequence)
    }
}
