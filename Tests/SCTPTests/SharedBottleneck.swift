import TestSupport
@testable import SCTP

/// Several associations whose senders share one bottleneck: flow i runs
/// from address 2i to 2i+1; every sender queues on address 0's link and
/// every receiver's SACKs on address 1's, with `profile`'s rate and queue.
/// Each sender keeps about 1 MiB buffered on stream 0, as a file transfer
/// does; the receivers count what arrives.
final class SharedBottleneck {
    let net: NetworkEmulator<Int>
    private(set) var senders: [SCTPAssociation] = []
    private(set) var receivers: [SCTPAssociation] = []
    /// Bytes each receiver got so far.
    private(set) var received: [Int]

    init(profile: LinkProfile, algorithms: [SCTPCongestionControl], seed: UInt64) {
        net = NetworkEmulator(seed: seed, conditions: profile.conditions, now: .seconds(1000))
        received = Array(repeating: 0, count: algorithms.count)
        for (i, algorithm) in algorithms.enumerated() {
            var config = SCTPConfig()
            config.congestionControl = algorithm
            senders.append(makeAssociation(seed: seed &+ UInt64(2 * i), config: config))
            receivers.append(makeAssociation(seed: seed &+ UInt64(2 * i + 1), config: config))
            net.sharedLinks[2 * i] = 0
            net.sharedLinks[2 * i + 1] = 1
        }
        for a in senders + receivers { a.connect(now: net.now) }
    }

    var now: Duration { net.now }

    private func endpoint(_ address: Int) -> SCTPAssociation {
        address % 2 == 0 ? senders[address / 2] : receivers[address / 2]
    }

    private func flush() {
        for address in 0..<(2 * senders.count) {
            let a = endpoint(address)
            while let p = a.pollTransmit(now: net.now) { net.send(p, from: address, to: address ^ 1) }
        }
    }

    /// Starts `flow` sending (bulk data from then on).
    private(set) var active: Set<Int> = []
    func start(_ flow: Int) { active.insert(flow) }

    /// Runs for `duration` of virtual time.
    func run(for duration: Duration) {
        let end = net.now + duration
        let message = [UInt8](repeating: 0x42, count: 16 * 1024)
        while net.now < end {
            for flow in active where senders[flow].isEstablished {
                while senders[flow].bufferedAmount < 1 << 20, (try? senders[flow].send(stream: 0, ppid: 53, bytes: message)) != nil {}
            }
            for (i, b) in receivers.enumerated() {
                while let e = b.pollEvent() {
                    if case .message(_, _, let m) = e { received[i] += m.count }
                }
            }
            flush()
            let all = senders + receivers
            let next = ([net.nextArrival] + all.map { $0.pollTimeout() }).compactMap { $0 }.min()
            guard let target = next else { return }
            net.advance(to: min(target, end))
            while let d = net.popDue() { endpoint(d.destination).handleInput(packet: d.bytes, now: net.now) }
            for a in all {
                if let t = a.pollTimeout(), t <= net.now { a.handleTimeout(now: net.now) }
            }
        }
    }
}
