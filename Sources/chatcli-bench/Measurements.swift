import ICE
import Runtime

/// The four measurements of `Tools/bench transfer`, each on fresh pairs.
enum Measurements {
    /// Median setup time over `pairs` fresh pairs, in milliseconds.
    static func setup(loop: EventLoop, relay: ICETURNServer?, pairs: Int = 5) throws -> Double {
        var samples: [Double] = []
        for _ in 0..<pairs {
            let pair = try BenchPair.connect(loop: loop, relay: relay)
            samples.append(pair.setup.seconds * 1000)
            pair.close()
        }
        return median(samples)
    }

    struct Stream {
        var bytes = 0
        var messages = 0
        var elapsed = 0.0
        var cpu = 0.0
        /// Datagrams each way during the whole run (data, and mostly SACKs back).
        var sentDatagrams = 0
        var sentBytes = 0
        var returnedDatagrams = 0
    }

    /// Messages of `size` bytes from offerer to answerer for `seconds`, the
    /// sender pausing above `high` buffered bytes and resuming below `low`
    /// (what a browser application does with `bufferedAmountLowThreshold`).
    static func stream(loop: EventLoop, relay: ICETURNServer?, size: Int, seconds: Double,
                       high: Int = 1 << 20, low: Int = 256 << 10) throws -> Stream {
        let pair = try BenchPair.connect(loop: loop, relay: relay)
        defer { pair.close() }
        let sender = pair.offerer
        let receiver = pair.answerer
        let payload = String(repeating: "x", count: size)
        var result = Stream()
        var counting = true
        receiver.onMessage = { text in
            guard counting else { return }
            result.bytes += text.utf8.count
            result.messages += 1
        }
        var paused = false
        let fill = { [unowned sender] in
            while sender.pc.bufferedAmount <= high, sender.failure == nil { sender.send(payload) }
            paused = true
        }
        sender.afterPump = { [unowned sender] in
            if paused, sender.pc.bufferedAmount < low {
                paused = false
                fill()
            }
        }
        let sentBefore = (sender.datagramsSent, sender.bytesSent)
        let returnedBefore = receiver.datagramsSent
        let cpuStart = processCPUTime()
        let start = loop.now
        loop.schedule(after: .nanoseconds(Int64(seconds * 1e9))) {
            counting = false
            result.elapsed = (loop.now - start).seconds
            result.cpu = (processCPUTime() - cpuStart).seconds
            result.sentDatagrams = sender.datagramsSent - sentBefore.0
            result.sentBytes = sender.bytesSent - sentBefore.1
            result.returnedDatagrams = receiver.datagramsSent - returnedBefore
            loop.stop()
        }
        fill()
        sender.pump()
        loop.run()
        if let failure = sender.failure ?? receiver.failure { throw BenchError("stream of \(size)-byte messages: \(failure)") }
        return result
    }

    /// Sequential ping-pongs of `size` bytes; returns round trips in µs.
    static func roundTrips(loop: EventLoop, relay: ICETURNServer?, count: Int = 1000, warmUp: Int = 20, size: Int = 100) throws -> [Double] {
        let pair = try BenchPair.connect(loop: loop, relay: relay)
        defer { pair.close() }
        let pinger = pair.offerer
        let ponger = pair.answerer
        let payload = String(repeating: "p", count: size)
        var samples: [Double] = []
        var done = 0
        var sentAt = loop.now
        ponger.onMessage = { [unowned ponger] text in ponger.send(text) }
        pinger.onMessage = { [unowned pinger] _ in
            let now = loop.now
            if done >= warmUp { samples.append((now - sentAt).seconds * 1e6) }
            done += 1
            if done == warmUp + count {
                loop.stop()
                return
            }
            sentAt = loop.now
            pinger.send(payload)
        }
        let deadline = loop.schedule(after: .seconds(30)) { loop.stop() }
        sentAt = loop.now
        pinger.send(payload)
        pinger.pump()
        loop.run()
        deadline.cancel()
        if let failure = pinger.failure ?? ponger.failure { throw BenchError("ping-pong: \(failure)") }
        guard samples.count == count else { throw BenchError("ping-pong: only \(samples.count) of \(count) round trips") }
        return samples
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// Nearest-rank percentile (`p` in 0...100).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[max(0, min(sorted.count - 1, rank - 1))]
    }
}
