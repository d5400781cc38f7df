extension SCTPAssociation {
    /// The lower layer has a working path again after an outage (an ICE
    /// restart or consent coming back). Timers backed off during the outage
    /// could hold data for up to `rtoMax`; instead the back-off and the error
    /// count are forgotten and everything outstanding is retransmitted now,
    /// from slow start, as on a fresh path.
    public func pathRestored(now: Duration) {
        self.now = now
        guard state == .established || state == .shutdownPending || state == .shutdownReceived else { return }
        errorCount = 0
        rto.resetBackOff(initial: config.rtoInitial)
        // Another path may carry less: start again from the base size.
        pathMTU.restart()
        congestion.mtu = packetSize
        congestion.restartModel()
        sendPathMTUProbeIfDue()
        guard !retransmissionQueue.isEmpty else { return }
        retransmitOutstanding()
        t3Deadline = now + rto.rto
    }
}
