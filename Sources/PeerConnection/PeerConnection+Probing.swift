import ICE
import STUN

/// Port probing (`PortProbingConfig`, set in `config.ice.portProbing`): the
/// runtime opens the hard side's extra sockets and closes them again.
extension PeerConnection {
    /// Sockets to open for probing; answer with `addProbeBases`.
    public func pollProbeSocketRequest() -> ProbeSocketRequest? {
        agent.pollProbeSocketRequest()
    }

    /// The local addresses of the sockets opened for a `ProbeSocketRequest`.
    public func addProbeBases(_ bases: [STUNAddress], now: Duration) {
        self.now = now
        agent.addProbeBases(bases, now: now)
        drainICE()
        flush()
    }

    /// Probe sockets to close: a pair was selected (or checking failed).
    public func pollReleasedProbeBases() -> [STUNAddress] {
        agent.pollReleasedProbeBases()
    }
}
