import STUN

/// Which side of the pairing decides the nominated pair (RFC 8445 §6.1.1).
public enum ICERole: String, Hashable, Sendable {
    case controlling
    case controlled

    var opposite: ICERole { self == .controlling ? .controlled : .controlling }
}

/// The ICE-level connection state, modelled on `RTCIceConnectionState`.
public enum ICEState: Hashable, Sendable, CustomStringConvertible {
    case new
    case checking
    /// A pair is selected and usable; checks may still run.
    case connected
    /// A pair is selected, checks are over and both sides signalled
    /// end-of-candidates.
    case completed
    /// Terminal until `restart`; the failure's `description` is the
    /// sentence for the user.
    case failed(ICEFailure)
    /// Consent checks on the selected pair have gone unanswered for a while;
    /// it may come back.
    case disconnected

    public var description: String {
        switch self {
        case .new: "new"
        case .checking: "checking"
        case .connected: "connected"
        case .completed: "completed"
        case .failed: "failed"
        case .disconnected: "disconnected"
        }
    }

    public var isFailed: Bool {
        if case .failed = self { return true }
        return false
    }

    /// Connected or completed: the selected pair carries data.
    public var isConnected: Bool { self == .connected || self == .completed }
}

/// What the agent reports to its owner, in the order it happened.
public enum ICEEvent: Hashable, Sendable {
    /// A local candidate to trickle to the peer (`sdpAttribute`).
    case localCandidate(ICECandidate)
    /// Local gathering is over: signal end-of-candidates to the peer.
    case gatheringComplete
    case stateChanged(ICEState)
    case selectedPairChanged(ICEPair)
    /// A role conflict (RFC 8445 §7.3.1.1) made this agent switch roles.
    case roleChanged(ICERole)
    /// RFC 7675: no answer to consent checks for `consentTimeout`; the
    /// agent has stopped sending on the pair.
    case consentLost
}

/// Bytes for the runtime to send: a UDP datagram from the local `source`
/// (a base the runtime has a socket for) to `destination`, or bytes for the
/// TCP stream to a TURN server.
public struct ICETransmit: Hashable, Sendable {
    /// How the runtime sends the bytes.
    public enum Route: Hashable, Sendable {
        /// One UDP datagram from `source` to `destination`.
        case datagram
        /// Bytes for the TCP connection to the TURN server at
        /// `destination` (`source` repeats it): the runtime opens the
        /// connection when it sees the first, keeps it, and reports its
        /// bytes and its closing to the agent.
        case turnStream
    }

    public let bytes: [UInt8]
    public let source: STUNAddress
    public let destination: STUNAddress
    public let route: Route

    public init(bytes: [UInt8], source: STUNAddress, destination: STUNAddress, route: Route = .datagram) {
        self.bytes = bytes
        self.source = source
        self.destination = destination
        self.route = route
    }
}

/// Application data (DTLS) a peer sent to a relayed candidate, unwrapped
/// from the TURN server's Data indication or ChannelData: handle it as a
/// datagram from `source` received on `base` (the relayed address).
public struct ICEReceived: Hashable, Sendable {
    public let bytes: [UInt8]
    public let source: STUNAddress
    public let base: STUNAddress
}

/// RFC 7983 demultiplexing of one UDP port shared by STUN, DTLS and TURN
/// channel data: the first byte of a datagram says which protocol it is.
public enum Demux {
    public enum Kind: Hashable, Sendable {
        case stun
        case zrtp
        case dtls
        case turnChannel
        case rtp
        case unknown
    }

    public static func classify(_ firstByte: UInt8) -> Kind {
        switch firstByte {
        case 0...3: .stun
        case 16...19: .zrtp
        case 20...63: .dtls
        case 64...79: .turnChannel
        case 128...191: .rtp
        default: .unknown
        }
    }

    /// `.unknown` for an empty datagram.
    public static func classify(datagram: [UInt8]) -> Kind {
        datagram.first.map(classify) ?? .unknown
    }
}

extension Duration {
    /// Whole milliseconds, rounded down; enough precision for timers.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
