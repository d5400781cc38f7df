import TestSupport
import Testing
@testable import SCTP

@Suite(.computeThread) struct ChatLatencyTests {
    /// A bulk transfer saturates the 100 Mbit/s, 100 ms path (the sender
    /// keeps 1 MiB queued, as `/send` does) while both sides type a line
    /// every 250 ms on a chat stream of higher priority. Each line reaches
    /// the peer within one-way delay + 50 ms: it neither waits behind the
    /// queued file data nor behind a standing queue in the network.
    /// Median and p99, with no loss and with 1 % loss. A lost line would
    /// cost a retransmission, at least a round trip more than the bound, so
    /// the chat stream is redundant (each line sent twice, 5 ms apart);
    /// with loss the packet carrying the first copy of every fourth line is
    /// dropped too, or 40 lines at 1 % may well lose none. Without the
    /// second copy the worst line took 167 ms A→B and 350 ms B→A (B sends
    /// nothing after it that could show the loss: it waits for T3).
    @Test(arguments: [0.0, 0.01])
    func chatLinesStayInstantDuringABulkTransfer(loss: Double) {
        let pair = connectedPair(profile: hundredMegabitPath(loss: loss), seed: 28)
        if loss > 0 { pair.filter = ChatLineDropper().drop }
        let a = pair.a, b = pair.b
        let chat: UInt16 = 1
        for endpoint in [a, b] {
            endpoint.setPriority(0, stream: chat)
            endpoint.setRedundant(true, stream: chat)
        }
        let bulk = [UInt8](repeating: 7, count: 16 * 1024)
        var sentAt: [Bool: [Duration]] = [true: [], false: []]
        var delays: [Bool: [Duration]] = [true: [], false: []]
        var nextLine = pair.now + .seconds(3)   // once the transfer fills the path
        var bulkBytes = 0
        let start = pair.now
        _ = pair.run(for: .seconds(13)) {
            while a.bufferedAmount < 1 << 20, (try? a.send(stream: 0, ppid: 53, bytes: bulk)) != nil {}
            for (receiver, fromA) in [(b, true), (a, false)] {
                while let e = receiver.pollEvent() {
                    guard case .message(let stream, _, let m) = e else { continue }
                    if stream == chat, let index = Int(String(decoding: m, as: UTF8.self)), index < sentAt[fromA]?.count ?? 0 {
                        delays[fromA]?.append(pair.now - (sentAt[fromA]?[index] ?? pair.now))
                    } else {
                        bulkBytes += m.count
                    }
                }
            }
            if pair.now >= nextLine {
                for (sender, fromA) in [(a, true), (b, false)] {
                    let index = sentAt[fromA]?.count ?? 0
                    sentAt[fromA]?.append(pair.now)
                    try? sender.send(stream: chat, ppid: 51, bytes: Array(String(index).utf8))
                }
                nextLine = pair.now + .milliseconds(250)
            }
            return false
        }
        let bound: Duration = .milliseconds(50 + 50)
        let rate = Double(bulkBytes) / (pair.now - start).seconds / 1e6
        for fromA in [true, false] {
            let d = (delays[fromA] ?? []).sorted()
            #expect(d.count >= 38)
            guard !d.isEmpty else { continue }
            let median = d[d.count / 2], p99 = d[min(d.count - 1, d.count * 99 / 100)]
            print("loss \(loss), chat \(fromA ? "A→B" : "B→A") during \(rate) MB/s: median \(median), p99 \(p99), max \(d.last ?? .zero)")
            #expect(median <= bound)
            #expect(p99 <= bound)
        }
        #expect(rate >= 6.0)
    }
}

/// Drops the packet that carries the first copy of every fourth chat line
/// (stream 1) in each direction.
final class ChatLineDropper {
    private var seen: [Bool: Set<UInt32>] = [true: [], false: []]

    func drop(toB: Bool, bytes: [UInt8]) -> [UInt8]? {
        guard let packet = SCTPPacket.decode(bytes, verifyChecksum: false) else { return bytes }
        for case .data(let d) in packet.chunks where d.streamID == 1 {
            guard seen[toB]?.insert(d.tsn).inserted == true else { continue }
            if (seen[toB]?.count ?? 0) % 4 == 0 { return nil }
        }
        return bytes
    }
}
