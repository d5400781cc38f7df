/// The delay-increase detection of HyStart (RFC 9406 §4.2), leaving slow
/// start at once as Linux's CUBIC does (no conservative slow start). A round
/// is a window of TSNs; the minimum RTT of its first samples is compared
/// with the previous round's.
struct HyStart {
    /// Samples per round before deciding (N_RTT_SAMPLE).
    static let samples = 8
    /// Below this many MTUs slow start always continues (Linux's
    /// hystart_low_window): delayed SACKs make few-packet rounds noisy.
    static let lowWindow = 16
    private var roundEnd: UInt32?
    private var lastRoundMinRTT: Duration?
    private var currentRoundMinRTT: Duration?
    private var count = 0

    mutating func delayIncreased(_ rtt: Duration, cumulativeTSN: UInt32, highestSent: UInt32) -> Bool {
        if roundEnd.map({ tsnLessOrEqual($0, cumulativeTSN) }) ?? true {
            roundEnd = highestSent
            if let c = currentRoundMinRTT { lastRoundMinRTT = c }
            currentRoundMinRTT = nil
            count = 0
        }
        currentRoundMinRTT = min(currentRoundMinRTT ?? rtt, rtt)
        count += 1
        guard count == Self.samples, let last = lastRoundMinRTT, let current = currentRoundMinRTT else { return false }
        // eta = clamp(lastRoundMinRTT / 8, 4 ms, 16 ms).
        let eta = min(max(last / 8, .milliseconds(4)), .milliseconds(16))
        return current >= last + eta
    }
}
