/// A model-based congestion control after draft-ietf-ccwg-bbr (BBRv3),
/// for one SCTP path. The model is the bottleneck bandwidth (a windowed
/// maximum of delivery-rate samples) and the round-trip propagation delay
/// (a windowed minimum of RTT samples); the sender paces at a gain times
/// that bandwidth and keeps at most a gain times their product in flight.
///
/// Loss response (BBRv3, §4.5.10): a round that loses more than
/// `lossThreshold` of what it sent is "too high": while probing, the
/// inflight at that point becomes `inflightHi`, the ceiling until the next
/// probe; in the other phases the short-term bounds `bwLo`/`inflightLo`
/// drop to what the round delivered (at least `beta` of their last value).
/// Unlike the draft, a lossy round counts only when its round trips show a
/// standing queue (even its smallest RTT `queueMargin` above the minimum): random loss on a path
/// whose queue is empty is not congestion, and reacting to it (as BBRv3
/// does above 2 %) gives up most of a long path at 3 % loss.
struct BBR {
    enum Mode: Equatable {
        case startup, drain, probeBWDown, probeBWCruise, probeBWRefill, probeBWUp, probeRTT
    }

    // Constants, named as in the draft (§2.7–§2.9, §4.6).
    /// 2/ln(2): doubles the sending rate every round in Startup.
    static let startupPacingGain = 2.77
    static let startupCwndGain = 2.0
    static let drainPacingGain = 0.35
    static let probeUpPacingGain = 1.25
    static let probeDownPacingGain = 0.9
    static let defaultCwndGain = 2.0
    static let probeUpCwndGain = 2.25
    /// Pacing 1 % under the estimate leaves the bottleneck queue draining.
    static let pacingMarginPercent = 1.0
    static let lossThreshold = 0.02
    static let beta = 0.7
    /// Fraction of inflightHi used while cruising, leaving room for others.
    static let headroom = 0.15
    /// Startup ends when three rounds grow the bandwidth by less than 25 %.
    static let fullBandwidthGrowth = 1.25
    static let fullBandwidthRounds = 3
    /// Max-bandwidth filter: the largest sample of the last two probe cycles.
    static let maxBandwidthCycles = 2
    static let minRTTWindow: Duration = .seconds(10)
    static let probeRTTInterval: Duration = .seconds(5)
    static let probeRTTDuration: Duration = .milliseconds(200)
    static let probeRTTCwndGain = 0.5
    static let minPipeCwndPackets = 4
    /// The least round trip the window is sized for. A user-space sender
    /// and receiver on a busy machine answer in milliseconds, not the tens
    /// of microseconds a LAN or loopback measures: a window of two such
    /// BDPs idled between their turns. With 5 ms, `Tools/bench files` at
    /// 1200-byte packets on loopback made 40 MB/s against CUBIC's 52; with
    /// 25 ms, 49 (and 110 against 88 with larger packets). Paths of 25 ms
    /// or more are sized by their own round trip.
    static let hostLatency: Duration = .milliseconds(25)
    /// Rounds per slot of the two-slot extra-acked filter (10 rounds in all).
    static let extraAckedRoundsPerSlot = 5
    /// Probe for more bandwidth every 2–3 s (randomised so flows desynchronise).
    static let probeWaitBase: Duration = .seconds(2)
    /// A lossy round is congestion only with queueing beyond this share of the
    /// minimum RTT (and at least `queueMarginFloor`).
    static let queueMargin = 0.125
    static let queueMarginFloor: Duration = .milliseconds(2)

    var mtu: Int
    var mode: Mode = .startup
    var cwnd: Int
    /// Bytes per second.
    var pacingRate: Double

    // Model.
    var maxBandwidthSlots = [Double](repeating: 0, count: BBR.maxBandwidthCycles)
    var cycleCount = 0
    var minRTT: Duration?
    var minRTTStamp: Duration = .zero
    var probeRTTMin: Duration?
    var probeRTTMinStamp: Duration = .zero
    var bandwidthLo = Double.infinity
    var inflightLo = Int.max
    var inflightHi = Int.max

    // Rounds.
    var nextRoundDelivered = 0
    var roundCount = 0
    var roundStart = false
    var roundsSinceProbe = 0

    // Per-round loss and latest measurements.
    var lostInRound = 0
    var deliveredInRound = 0
    var minRTTInRound: Duration?
    var lossTooHighInRound = false
    /// Any loss with a standing queue: the lower bounds adapt (BBRv3 adapts
    /// them on any loss; random loss on an empty queue is left out).
    var lossWithQueueInRound = false
    var bandwidthLatest = 0.0
    var inflightLatest = 0

    // Startup.
    var filledPipe = false
    var fullBandwidth = 0.0
    var fullBandwidthCount = 0

    // ProbeBW.
    var cycleStamp: Duration = .zero
    var probeWait: Duration = .seconds(2)
    var probeUpRounds = 0
    /// When ProbeBW_UP began: it lasts at least a min RTT.
    var probeUpStamp: Duration = .zero
    var random: UInt64
    /// The generator's seed, for a model started afresh on a new path.
    let seed: UInt64

    // Ack aggregation (§4.6.2.1): how far deliveries ran ahead of the
    // bandwidth estimate, a windowed maximum over about ten rounds.
    var extraAckedSlots = [0, 0]
    var ackEpochStart: Duration = .zero
    var ackEpochAcked = 0

    // ProbeRTT.
    var probeRTTDoneStamp: Duration?
    var probeRTTRoundDone = false
    var priorCwnd = 0
    /// Bytes acknowledged since the last retransmission timeout collapsed cwnd.
    var recoveringFromTimeout = false

    init(mtu: Int, initialCwnd: Int, seed: UInt64) {
        self.mtu = mtu
        cwnd = initialCwnd
        self.seed = seed
        random = seed | 1
        // §4.6.2: the initial window over a nominal 1 ms round trip.
        pacingRate = Self.startupPacingGain * Double(initialCwnd) / 0.001
    }

    var maxBandwidth: Double { maxBandwidthSlots.max() ?? 0 }
    /// The bandwidth the sender may use: the max filter, bounded by loss.
    var bandwidth: Double { min(maxBandwidth, bandwidthLo) }

    var pacingGain: Double {
        switch mode {
        case .startup: return Self.startupPacingGain
        case .drain: return Self.drainPacingGain
        case .probeBWDown: return Self.probeDownPacingGain
        case .probeBWUp: return Self.probeUpPacingGain
        case .probeBWCruise, .probeBWRefill, .probeRTT: return 1
        }
    }

    var cwndGain: Double {
        switch mode {
        case .startup, .drain: return Self.startupCwndGain
        case .probeBWUp: return Self.probeUpCwndGain
        default: return Self.defaultCwndGain
        }
    }

    /// Bandwidth-delay product at `gain`, in bytes; the initial window
    /// before any RTT sample.
    func bdp(_ gain: Double = 1) -> Int {
        guard let minRTT, maxBandwidth > 0 else { return Self.minPipeCwndPackets * mtu }
        return Int(gain * bandwidth * max(minRTT, Self.hostLatency).seconds)
    }

    var minPipeCwnd: Int { Self.minPipeCwndPackets * mtu }
}
