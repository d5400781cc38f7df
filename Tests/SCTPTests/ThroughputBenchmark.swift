import TestSupport
#if canImport(Glibc)
import Glibc
#endif
import SCTP
import Testing

/// In-process throughput of two ``DataChannelEndpoint``s joined back to back
/// (no loss, no delay, no DTLS). Not a timed unit test: enabled only with
/// `SCTP_BENCH=1`, and only meaningful in a release build.
struct ThroughputBenchmark {
    struct Result {
        var messages: Int
        var bytes: Int
        var packets: Int
    }

    /// Sends `count` messages of `size` bytes and returns when all arrived.
    static func run(count: Int, size: Int) -> Result {
        var r1 = SeededRandom(seed: 1), r2 = SeededRandom(seed: 2)
        let a = DataChannelEndpoint(role: .client, using: &r1)
        let b = DataChannelEndpoint(role: .server, using: &r2)
        var now: Duration = .seconds(1)
        a.connect(now: now)
        let id = (try? a.openChannel(label: "bench")) ?? 0
        let message = [UInt8](repeating: 0x61, count: size)
        var sent = 0, received = 0, bytes = 0, packets = 0
        while received < count {
            while sent < count && a.bufferedAmount < 1_000_000 {
                guard (try? a.send(binary: message, on: id)) != nil else { break }
                sent += 1
            }
            while let p = a.pollTransmit(now: now) { packets += 1; b.handleInput(packet: p, now: now) }
            while let e = b.pollEvent() {
                if case .message(_, .binary(let m)) = e { received += 1; bytes += m.count }
            }
            while let p = b.pollTransmit(now: now) { packets += 1; a.handleInput(packet: p, now: now) }
            while a.pollEvent() != nil {}
            now += .microseconds(50)
            if let t = a.pollTimeout(), t <= now { a.handleTimeout(now: now) }
            if let t = b.pollTimeout(), t <= now { b.handleTimeout(now: now) }
        }
        return Result(messages: received, bytes: bytes, packets: packets)
    }
}

@Suite(.computeThread) struct ThroughputBenchmarkTests {
    @Test(.enabled(if: Environment.benchmark)) func bulkAndSmallMessageThroughput() {
        let clock = ContinuousClock()
        let t0 = clock.now
        let bulk = ThroughputBenchmark.run(count: 20_000, size: 16 * 1024)
        let t1 = clock.now
        let small = ThroughputBenchmark.run(count: 1_000_000, size: 100)
        let t2 = clock.now
        let secs = { (d: Duration) in Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        print("bulk 16 KiB: \(Double(bulk.bytes) / secs(t1 - t0) / 1e6) MB/s, small 100 B: \(Double(small.messages) / secs(t2 - t1)) msg/s")
        #expect(bulk.messages == 20_000 && small.messages == 1_000_000)
    }
}

enum Environment {
    static var benchmark: Bool {
        guard let v = getenv("SCTP_BENCH") else { return false }
        return String(cString: v) == "1"
    }
}
