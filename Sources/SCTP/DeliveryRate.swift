/// What the sender knew when a DATA chunk left: the stamp that lets its
/// acknowledgement measure the delivery rate over the chunk's flight
/// (draft-cheng-iccrg-delivery-rate-estimation §3.2, "P.delivered" etc.).
struct DeliveryStamp {
    /// Bytes delivered (acknowledged) before the chunk was sent.
    var delivered = 0
    /// When `delivered` last grew, as of the send.
    var deliveredTime: Duration = .zero
    /// Send time of the chunk whose acknowledgement set `deliveredTime`:
    /// with the chunk's own send time it gives the send-side interval.
    var firstSentTime: Duration = .zero
    /// The sender had less to send than its window allowed.
    var isAppLimited = false
    /// Bytes in flight just after the chunk was sent (BBR's tx_in_flight).
    var inflight = 0
}

/// One delivery-rate sample, taken once per SACK from the most recently
/// sent of the chunks it newly acknowledged.
struct RateSample {
    /// Bytes per second.
    var deliveryRate: Double
    /// Bytes delivered over the sample's interval.
    var delivered: Int
    /// `delivered` when the sampled chunk was sent: the round counter's clock.
    var priorDelivered: Int
    var isAppLimited: Bool
    /// Bytes in flight when the sampled chunk was sent.
    var inflightAtSend: Int
}

/// Delivery-rate estimation for SCTP (the draft's algorithm with SACKs:
/// cumulatively and gap-acknowledged bytes both count as delivered).
/// Sans-IO: the association stamps every DATA chunk it sends and reports
/// each newly acknowledged one.
struct DeliveryRateEstimator {
    /// Bytes acknowledged since the association began (C.delivered).
    private(set) var delivered = 0
    private(set) var deliveredTime: Duration = .zero
    private(set) var firstSentTime: Duration = .zero
    /// `delivered` at which the current application-limited period ends;
    /// 0 when the sender is not application-limited (C.app_limited).
    private(set) var appLimitedUntil = 0
    /// The newest chunk acknowledged by the SACK being processed.
    private var newest: (stamp: DeliveryStamp, sentAt: Duration)?

    /// Stamps a chunk sent at `now` with `flightBefore` bytes already in flight.
    mutating func stamp(now: Duration, flightBefore: Int, size: Int) -> DeliveryStamp {
        if flightBefore == 0 {
            // Restarting from idle: the interval starts now, not at the last ack.
            firstSentTime = now
            deliveredTime = now
        }
        return DeliveryStamp(delivered: delivered, deliveredTime: deliveredTime, firstSentTime: firstSentTime,
                             isAppLimited: appLimitedUntil != 0, inflight: flightBefore + size)
    }

    /// A chunk sent at `sentAt` with `stamp` was newly acknowledged at `now`.
    mutating func acknowledged(bytes: Int, stamp: DeliveryStamp, sentAt: Duration, now: Duration) {
        delivered += bytes
        deliveredTime = now
        if let n = newest, n.stamp.delivered > stamp.delivered || (n.stamp.delivered == stamp.delivered && n.sentAt >= sentAt) {
            return
        }
        newest = (stamp, sentAt)
        firstSentTime = sentAt
    }

    /// The sample of the SACK just processed, nil when it acknowledged
    /// nothing new or its interval is too short to mean anything.
    mutating func takeSample(now: Duration, minRTT: Duration?) -> RateSample? {
        if appLimitedUntil != 0, delivered > appLimitedUntil { appLimitedUntil = 0 }
        guard let n = newest else { return nil }
        newest = nil
        let sendElapsed = n.sentAt - n.stamp.firstSentTime
        let ackElapsed = now - n.stamp.deliveredTime
        // The longer of the two: ack compression cannot inflate the rate
        // beyond what was sent, nor a send burst beyond what was acked.
        let interval = max(sendElapsed, ackElapsed)
        let bytes = delivered - n.stamp.delivered
        // §3.3: intervals shorter than the minimum RTT are not trustworthy.
        guard bytes > 0, interval > .zero, interval >= (minRTT ?? .zero) else { return nil }
        return RateSample(deliveryRate: Double(bytes) / interval.seconds, delivered: bytes, priorDelivered: n.stamp.delivered,
                          isAppLimited: n.stamp.isAppLimited, inflightAtSend: n.stamp.inflight)
    }

    /// The sender ran out of data with room left in its window: samples
    /// until what is in flight now is delivered say nothing about the path.
    mutating func markApplicationLimited(flightSize: Int) {
        appLimitedUntil = max(1, delivered + flightSize)
    }
}

extension Duration {
    /// In seconds, as a floating-point number.
    var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }

    init(seconds value: Double) {
        self = .nanoseconds(Int64(max(0, min(value, 1e9)) * 1e9))
    }
}
