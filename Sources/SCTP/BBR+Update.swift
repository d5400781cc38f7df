extension BBR {
    /// Largest burst the pacer sends at one instant, in datagrams of `mtu`:
    /// 1 ms at the pacing rate (Linux's bbr_tso_segs_goal uses the same
    /// millisecond), 2 at least, and at most 64, the kernel's limit for one
    /// `UDP_SEGMENT` send, so a burst leaves as one GSO buffer.
    static let maxBurstPackets = 64
    var burstPackets: Int { min(Self.maxBurstPackets, max(2, Int(pacingRate * 0.001) / max(1, mtu))) }

    /// A SACK newly acknowledged `bytesAcked` (`totalDelivered` since the
    /// start), with its delivery-rate `sample` and RTT sample, `flightSize`
    /// bytes still in flight. §4.2: model first, then control parameters.
    mutating func onAcknowledged(sample: RateSample?, bytesAcked: Int, totalDelivered: Int, rtt: Duration?,
                                 flightSize: Int, now: Duration) {
        roundStart = false
        if let s = sample, s.priorDelivered >= nextRoundDelivered {
            endRound()
            nextRoundDelivered = totalDelivered
            roundCount += 1
            roundsSinceProbe += 1
            roundStart = true
        }
        deliveredInRound += bytesAcked
        let probeRTTExpired = now > probeRTTMinStamp + Self.probeRTTInterval
        if let rtt {
            minRTTInRound = min(minRTTInRound ?? rtt, rtt)
            updateMinRTT(rtt, now: now, probeRTTExpired: probeRTTExpired)
        }
        if let s = sample {
            bandwidthLatest = max(bandwidthLatest, s.deliveryRate)
            inflightLatest = max(inflightLatest, s.delivered)
            let slot = cycleCount % Self.maxBandwidthCycles
            // Application-limited samples count only when they show more.
            if !s.isAppLimited || s.deliveryRate >= maxBandwidth {
                maxBandwidthSlots[slot] = max(maxBandwidthSlots[slot], s.deliveryRate)
            }
            checkLossTooHigh(inflightAtSend: s.inflightAtSend, flightSize: flightSize, now: now)
            if roundStart, !s.isAppLimited { checkFullPipe() }
        }
        updateAckAggregation(bytesAcked: bytesAcked, now: now)
        if mode == .startup, filledPipe { mode = .drain }
        if mode == .drain, flightSize <= bdp() { startProbeDown(now: now) }
        updateProbeBW(flightSize: flightSize, now: now)
        updateProbeRTT(flightSize: flightSize, totalDelivered: totalDelivered, now: now, expired: probeRTTExpired)
        setPacingRate()
        setCwnd(bytesAcked: bytesAcked, totalDelivered: totalDelivered)
    }

    /// Bytes found lost (fast retransmit or RACK) by the SACK being processed.
    mutating func onLoss(bytes: Int) { lostInRound += bytes }

    /// T3-rtx expired: one packet in flight, then the model's window again
    /// as acknowledgements return (RFC 9260 §7.2.3 for the collapse).
    mutating func onRetransmissionTimeout() {
        if mode != .probeRTT { priorCwnd = max(priorCwnd, cwnd) }
        cwnd = mtu
        recoveringFromTimeout = true
    }

    // MARK: Model

    private mutating func updateMinRTT(_ rtt: Duration, now: Duration, probeRTTExpired: Bool) {
        if probeRTTMin.map({ rtt <= $0 }) ?? true || probeRTTExpired {
            probeRTTMin = rtt
            probeRTTMinStamp = now
        }
        let minRTTExpired = now > minRTTStamp + Self.minRTTWindow
        if let p = probeRTTMin, minRTT.map({ p <= $0 }) ?? true || minRTTExpired {
            minRTT = p
            minRTTStamp = probeRTTMinStamp
        }
    }

    /// §4.3.1.2: Startup is done when the bandwidth stopped growing by 25 %
    /// for three rounds (loss ends it earlier, in `checkLossTooHigh`).
    private mutating func checkFullPipe() {
        guard !filledPipe else { return }
        if maxBandwidth >= fullBandwidth * Self.fullBandwidthGrowth {
            fullBandwidth = maxBandwidth
            fullBandwidthCount = 0
            return
        }
        fullBandwidthCount += 1
        if fullBandwidthCount >= Self.fullBandwidthRounds { filledPipe = true }
    }

    /// Whether the round's losses exceed the threshold while a queue stands.
    private func lossTooHigh(inflightAtSend: Int) -> Bool {
        guard lostInRound > 0, standingQueue else { return false }
        let sent = max(inflightAtSend, deliveredInRound + lostInRound)
        return Double(lostInRound) > Self.lossThreshold * Double(sent)
    }

    /// Whether even the round's smallest RTT sample is `queueMargin` above
    /// the minimum: a delayed SACK inflates single samples, a standing
    /// queue every one of them.
    private var standingQueue: Bool {
        guard let minRTT, let smallest = minRTTInRound else { return false }
        return smallest > minRTT + max(minRTT * Self.queueMargin, Self.queueMarginFloor)
    }

    /// BBRv3's reaction to a round that loses too much (§4.5.10.2): the
    /// inflight of the moment becomes the ceiling, and a probe stops.
    private mutating func checkLossTooHigh(inflightAtSend: Int, flightSize: Int, now: Duration) {
        if lostInRound > 0, standingQueue { lossWithQueueInRound = true }
        guard !lossTooHighInRound, lossTooHigh(inflightAtSend: inflightAtSend) else { return }
        lossTooHighInRound = true
        switch mode {
        case .startup:
            inflightHi = max(inflightAtSend, Int(Double(bdp()) * Self.beta), minPipeCwnd)
            filledPipe = true
        case .probeBWUp, .probeBWRefill:
            inflightHi = max(inflightAtSend, Int(Double(bdp()) * Self.beta), minPipeCwnd)
            startProbeDown(now: now)
        default:
            break
        }
    }

    /// Closes a round: a lossy one lowers the short-term bounds to what it
    /// delivered (§4.5.10.3, "adapt lower bounds").
    private mutating func endRound() {
        if lossWithQueueInRound, mode != .startup, mode != .probeBWUp {
            let lo = bandwidthLo.isFinite ? bandwidthLo : maxBandwidth
            bandwidthLo = max(bandwidthLatest, Self.beta * lo)
            let inflight = inflightLo == Int.max ? cwnd : inflightLo
            inflightLo = max(inflightLatest, Int(Self.beta * Double(inflight)), minPipeCwnd)
        }
        lostInRound = 0
        deliveredInRound = 0
        minRTTInRound = nil
        lossTooHighInRound = false
        lossWithQueueInRound = false
        bandwidthLatest = 0
        inflightLatest = 0
    }

    /// Delayed and stretched SACKs deliver in clumps: the window must cover
    /// the clump beyond what the bandwidth estimate expects, or a short
    /// path (whose BDP is a few packets) idles between them.
    private mutating func updateAckAggregation(bytesAcked: Int, now: Duration) {
        guard bytesAcked > 0, maxBandwidth > 0 else { return }
        if roundStart, roundCount % Self.extraAckedRoundsPerSlot == 0 {
            let slot = (roundCount / Self.extraAckedRoundsPerSlot) % extraAckedSlots.count
            extraAckedSlots[slot] = 0
        }
        var expected = Int(bandwidth * (now - ackEpochStart).seconds)
        if ackEpochAcked <= expected {
            ackEpochStart = now
            ackEpochAcked = 0
            expected = 0
        }
        ackEpochAcked += bytesAcked
        let extra = min(ackEpochAcked - expected, cwnd)
        let slot = (roundCount / Self.extraAckedRoundsPerSlot) % extraAckedSlots.count
        extraAckedSlots[slot] = max(extraAckedSlots[slot], extra)
    }

    var extraAcked: Int { extraAckedSlots.max() ?? 0 }

    // MARK: ProbeBW (§4.3.3)

    private mutating func startProbeDown(now: Duration) {
        mode = .probeBWDown
        cycleStamp = now
        cycleCount += 1
        maxBandwidthSlots[cycleCount % Self.maxBandwidthCycles] = 0
        // Keep the newest estimate: the slot just cleared refills from samples.
        random = random &* 6364136223846793005 &+ 1442695040888963407
        probeWait = Self.probeWaitBase + .milliseconds(Int64((random >> 33) % 1000))
    }

    private var inflightWithHeadroom: Int {
        guard inflightHi != Int.max else { return Int.max }
        return max(Int(Double(inflightHi) * (1 - Self.headroom)), minPipeCwnd)
    }

    private func timeToProbe(now: Duration) -> Bool {
        // Reno-coexistence bound: at most as many rounds as packets in a BDP, up to 63.
        let renoRounds = min(63, max(1, bdp() / max(1, mtu)))
        return now - cycleStamp > probeWait || roundsSinceProbe >= renoRounds
    }

    private mutating func updateProbeBW(flightSize: Int, now: Duration) {
        switch mode {
        case .probeBWDown:
            if timeToProbe(now: now) { return startRefill() }
            if flightSize <= min(bdp(), inflightWithHeadroom) { mode = .probeBWCruise }
        case .probeBWCruise:
            if timeToProbe(now: now) { startRefill() }
        case .probeBWRefill:
            if roundStart {
                mode = .probeBWUp
                probeUpRounds = 0
                probeUpStamp = now
            }
        case .probeBWUp:
            if roundStart {
                probeUpRounds += 1
                // Raise the ceiling faster each round that it limits (§4.3.3.6).
                if inflightHi != Int.max, cwnd >= inflightHi - mtu {
                    inflightHi += mtu << min(probeUpRounds, 20)
                }
            }
            // A queue builds: the probe ends, but only after a min RTT in the
            // phase (the draft's BBRHasElapsedInPhase, as Linux has it),
            // so what the faster rate delivered is measured. Timed from the
            // cycle's start, as this once was, a flow whose competitor keeps a
            // queue standing (its inflight above 1.25 BDP at once) never
            // probed: its share of a bottleneck shared with TCP CUBIC shrank
            // cycle by cycle to 7 % (`Tools/bench longpath --fairness`).
            if let minRTT, now - probeUpStamp > minRTT, flightSize >= bdp(Self.probeUpPacingGain) + 2 * mtu {
                startProbeDown(now: now)
            }
        default:
            break
        }
    }

    private mutating func startRefill() {
        bandwidthLo = .infinity
        inflightLo = Int.max
        roundsSinceProbe = 0
        mode = .probeBWRefill
    }

    // MARK: ProbeRTT (§4.3.4)

    private mutating func updateProbeRTT(flightSize: Int, totalDelivered: Int, now: Duration, expired: Bool) {
        if expired, mode != .probeRTT, filledPipe {
            mode = .probeRTT
            priorCwnd = max(priorCwnd, cwnd)
            probeRTTDoneStamp = nil
        }
        guard mode == .probeRTT else { return }
        if probeRTTDoneStamp == nil, flightSize <= probeRTTCwnd {
            probeRTTDoneStamp = now + Self.probeRTTDuration
            probeRTTRoundDone = false
            nextRoundDelivered = totalDelivered   // a round from here, as §4.3.4.4 has it
        } else if let done = probeRTTDoneStamp {
            if roundStart { probeRTTRoundDone = true }
            if probeRTTRoundDone, now >= done {
                probeRTTMinStamp = now
                cwnd = max(cwnd, priorCwnd)
                priorCwnd = 0
                startProbeDown(now: now)
            }
        }
    }

    private var probeRTTCwnd: Int { max(minPipeCwnd, bdp(Self.probeRTTCwndGain)) }

    // MARK: Control parameters

    private mutating func setPacingRate() {
        guard maxBandwidth > 0 else { return }
        let rate = pacingGain * bandwidth * (100 - Self.pacingMarginPercent) / 100
        // Startup never lowers the rate: early samples undershoot.
        if filledPipe || rate > pacingRate { pacingRate = rate }
    }

    private mutating func setCwnd(bytesAcked: Int, totalDelivered: Int) {
        // Linux adds the aggregation allowance only once the pipe is full:
        // in Startup the lagging estimate makes every clump look large.
        let target = bdp(cwndGain) + (filledPipe ? extraAcked : 0) + 2 * burstPackets * mtu
        if recoveringFromTimeout {
            // Packet conservation until a round trip has passed since the
            // timeout; then the path evidently works: the window before it
            // comes back (BBR's prior_cwnd restored when recovery ends).
            cwnd += bytesAcked
            if roundStart || cwnd >= priorCwnd {
                cwnd = max(cwnd, min(priorCwnd, target))
                recoveringFromTimeout = false
                priorCwnd = 0
            }
        } else if filledPipe {
            cwnd = min(cwnd + bytesAcked, target)
        } else if cwnd < target || totalDelivered < 10 * mtu {
            cwnd += bytesAcked
        }
        var cap = Int.max
        switch mode {
        case .probeBWUp, .probeBWRefill, .startup, .drain: cap = inflightHi
        default: cap = inflightWithHeadroom
        }
        cap = min(cap, inflightLo)
        if mode == .probeRTT { cap = min(cap, probeRTTCwnd) }
        cwnd = max(min(cwnd, cap), minPipeCwnd)
    }
}
