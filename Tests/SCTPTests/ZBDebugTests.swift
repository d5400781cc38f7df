import Glibc
import TestSupport
import Testing
@testable import SCTP

@Suite struct ZBDebugTests {
    @Test(.enabled(if: Environment.benchmark)) func trace() {
        var last: Duration = .zero
        let loss = Double(String(cString: getenv("ZB_LOSS") ?? strdup("0.01"))) ?? 0.01
        let r = bulkTransfer(total: 16 << 20, profile: hundredMegabitPath(loss: loss), packetSize: 1200, seed: 28,
                             limit: .seconds(8), algorithm: .bbr) { pair, bytes in
            guard pair.now - last >= .milliseconds(200) else { return }
            guard let m = pair.a.congestion.bbr else { print("no bbr"); return }
            last = pair.now
            print(pair.now, bytes, m.mode, "cwnd", m.cwnd, "flight", pair.a.flightSize, "rate", Int(m.pacingRate), "maxbw", Int(m.maxBandwidth),
                  "bwlo", m.bandwidthLo, "inlo", m.inflightLo, "inhi", m.inflightHi, "minrtt", m.minRTT ?? .zero, "rtx", pair.a.retransmitList.count,
                  "rwnd", pair.a.peerReceiverWindow, "q", pair.a.bufferedAmount)
        }
        print(r.goodput, r.bytes, r.elapsed, r.dropped, r.sender)
    }
}
