import Glibc
import ICE
import Runtime

/// Two `BenchPeer`s on one loop (relay-only through `relay` when given), connected by handing the SDP and the
/// trickled candidates straight across (what signaling would carry).
struct BenchPair {
    let offerer: BenchPeer
    let answerer: BenchPeer
    /// From creating the offerer to the channel open on both sides.
    let setup: Duration

    static func connect(loop: EventLoop, relay: ICETURNServer? = nil, timeout: Duration = .seconds(10)) throws -> BenchPair {
        let start = loop.now
        let offerer = try BenchPeer(loop: loop, isOfferer: true, relay: relay)
        let offer = offerer.pc.createOffer()
        let answerer = try BenchPeer(loop: loop, isOfferer: false, relay: relay)
        let answer = try answerer.pc.acceptOffer(offer)
        try offerer.pc.acceptAnswer(answer)
        offerer.onCandidate = { [unowned answerer] candidate in
            answerer.pc.addRemoteCandidate(candidate)
            answerer.pump()
        }
        answerer.onCandidate = { [unowned offerer] candidate in
            offerer.pc.addRemoteCandidate(candidate)
            offerer.pump()
        }
        var openedAt: Instant?
        let bothOpen = { [unowned offerer, unowned answerer] in
            guard offerer.isOpen, answerer.isOpen, openedAt == nil else { return }
            openedAt = loop.now
            loop.stop()
        }
        offerer.onOpen = bothOpen
        answerer.onOpen = bothOpen
        let deadline = loop.schedule(after: timeout) { loop.stop() }
        offerer.pump()
        answerer.pump()
        loop.run()
        deadline.cancel()
        offerer.onOpen = nil
        answerer.onOpen = nil
        guard let openedAt else {
            let reason = offerer.failure ?? answerer.failure ?? "timed out after \(timeout)"
            offerer.close()
            answerer.close()
            throw BenchError("the data channel did not open: \(reason)")
        }
        return BenchPair(offerer: offerer, answerer: answerer, setup: openedAt - start)
    }

    func close() {
        offerer.close()
        answerer.close()
    }
}

/// User + system CPU time of this process so far.
func processCPUTime() -> Duration {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let micros = (Int64(usage.ru_utime.tv_sec) + Int64(usage.ru_stime.tv_sec)) * 1_000_000
        + Int64(usage.ru_utime.tv_usec) + Int64(usage.ru_stime.tv_usec)
    return .microseconds(micros)
}

extension Duration {
    var seconds: Double { Double(clampedNanoseconds) / 1e9 }
}
