/// SCTP chunk type codes (RFC 9260 §3.2, RFC 3758, RFC 6525).
public enum ChunkType {
    public static let data: UInt8 = 0
    public static let initiate: UInt8 = 1
    public static let initAck: UInt8 = 2
    public static let sack: UInt8 = 3
    public static let heartbeat: UInt8 = 4
    public static let heartbeatAck: UInt8 = 5
    public static let abort: UInt8 = 6
    public static let shutdown: UInt8 = 7
    public static let shutdownAck: UInt8 = 8
    public static let error: UInt8 = 9
    public static let cookieEcho: UInt8 = 10
    public static let cookieAck: UInt8 = 11
    public static let shutdownComplete: UInt8 = 14
    public static let reconfig: UInt8 = 130
    public static let forwardTSN: UInt8 = 192
    /// Padding (RFC 4820): ignored by receivers; fills Path MTU probes.
    public static let pad: UInt8 = 0x84
}

/// One decoded chunk. Variable parts are slices of the received packet, so
/// decoding does not copy user data.
public enum SCTPChunk: Equatable, Sendable {
    case data(DataChunk)
    case initiate(InitChunk)
    case initAck(InitChunk)
    case sack(SackChunk)
    /// Heartbeat Information TLV(s), echoed back unchanged in the ack.
    case heartbeat(info: ArraySlice<UInt8>)
    case heartbeatAck(info: ArraySlice<UInt8>)
    /// `reflectedTag` is the T bit: the verification tag is the sender's own.
    case abort(reflectedTag: Bool, causes: ArraySlice<UInt8>)
    case shutdown(cumulativeTSNAck: UInt32)
    case shutdownAck
    case error(causes: ArraySlice<UInt8>)
    case cookieEcho(cookie: ArraySlice<UInt8>)
    case cookieAck
    case shutdownComplete(reflectedTag: Bool)
    case forwardTSN(ForwardTSNChunk)
    case reconfig([ReconfigParameter])
    /// A chunk type this endpoint does not implement; the upper two bits of
    /// `type` say what the receiver must do with it (RFC 9260 §3.2).
    case unknown(type: UInt8, flags: UInt8, value: ArraySlice<UInt8>)
}

/// DATA chunk (RFC 9260 §3.3.1).
public struct DataChunk: Equatable, Sendable {
    public static let endingFlag: UInt8 = 0x01
    public static let beginningFlag: UInt8 = 0x02
    public static let unorderedFlag: UInt8 = 0x04
    public static let immediateFlag: UInt8 = 0x08

    public var flags: UInt8
    public var tsn: UInt32
    public var streamID: UInt16
    public var streamSequence: UInt16
    public var ppid: UInt32
    public var userData: ArraySlice<UInt8>

    public init(flags: UInt8, tsn: UInt32, streamID: UInt16, streamSequence: UInt16, ppid: UInt32, userData: ArraySlice<UInt8>) {
        self.flags = flags
        self.tsn = tsn
        self.streamID = streamID
        self.streamSequence = streamSequence
        self.ppid = ppid
        self.userData = userData
    }

    public var isBeginning: Bool { flags & Self.beginningFlag != 0 }
    public var isEnding: Bool { flags & Self.endingFlag != 0 }
    public var isUnordered: Bool { flags & Self.unorderedFlag != 0 }
}

/// INIT and INIT ACK share one layout (RFC 9260 §3.3.2, §3.3.3).
public struct InitChunk: Equatable, Sendable {
    public var initiateTag: UInt32
    public var advertisedReceiverWindowCredit: UInt32
    public var outboundStreams: UInt16
    public var inboundStreams: UInt16
    public var initialTSN: UInt32
    public var parameters: [InitParameter]

    public init(initiateTag: UInt32, advertisedReceiverWindowCredit: UInt32, outboundStreams: UInt16,
                inboundStreams: UInt16, initialTSN: UInt32, parameters: [InitParameter]) {
        self.initiateTag = initiateTag
        self.advertisedReceiverWindowCredit = advertisedReceiverWindowCredit
        self.outboundStreams = outboundStreams
        self.inboundStreams = inboundStreams
        self.initialTSN = initialTSN
        self.parameters = parameters
    }

    public var stateCookie: [UInt8]? {
        for case .stateCookie(let c) in parameters { return c }
        return nil
    }

    public var supportsForwardTSN: Bool {
        parameters.contains { p in
            switch p {
            case .forwardTSNSupported: return true
            case .supportedExtensions(let types): return types.contains(ChunkType.forwardTSN)
            default: return false
            }
        }
    }

    public var supportsPad: Bool {
        parameters.contains { p in
            if case .supportedExtensions(let types) = p { return types.contains(ChunkType.pad) }
            return false
        }
    }

    public var supportsReconfig: Bool {
        parameters.contains { p in
            if case .supportedExtensions(let types) = p { return types.contains(ChunkType.reconfig) }
            return false
        }
    }
}

/// Parameters of INIT / INIT ACK that this endpoint understands.
public enum InitParameter: Equatable, Sendable {
    public static let stateCookieType: UInt16 = 7
    public static let unrecognizedParameterType: UInt16 = 8
    public static let supportedExtensionsType: UInt16 = 0x8008
    public static let forwardTSNSupportedType: UInt16 = 0xC000

    case stateCookie([UInt8])
    case forwardTSNSupported
    case supportedExtensions([UInt8])
    case unknown(type: UInt16, value: [UInt8])
}

/// One Gap Ack Block: offsets from the cumulative TSN ack (RFC 9260 §3.3.4).
public struct GapAckBlock: Equatable, Sendable {
    public var start: UInt16
    public var end: UInt16
    public init(start: UInt16, end: UInt16) {
        self.start = start
        self.end = end
    }
}

/// SACK chunk (RFC 9260 §3.3.4).
public struct SackChunk: Equatable, Sendable {
    public var cumulativeTSNAck: UInt32
    public var advertisedReceiverWindowCredit: UInt32
    public var gapAckBlocks: [GapAckBlock]
    public var duplicateTSNs: [UInt32]

    public init(cumulativeTSNAck: UInt32, advertisedReceiverWindowCredit: UInt32,
                gapAckBlocks: [GapAckBlock] = [], duplicateTSNs: [UInt32] = []) {
        self.cumulativeTSNAck = cumulativeTSNAck
        self.advertisedReceiverWindowCredit = advertisedReceiverWindowCredit
        self.gapAckBlocks = gapAckBlocks
        self.duplicateTSNs = duplicateTSNs
    }
}

/// FORWARD TSN chunk (RFC 3758 §3.2).
public struct ForwardTSNChunk: Equatable, Sendable {
    public struct Skipped: Equatable, Sendable {
        public var streamID: UInt16
        public var streamSequence: UInt16
        public init(streamID: UInt16, streamSequence: UInt16) {
            self.streamID = streamID
            self.streamSequence = streamSequence
        }
    }

    public var newCumulativeTSN: UInt32
    public var streams: [Skipped]

    public init(newCumulativeTSN: UInt32, streams: [Skipped]) {
        self.newCumulativeTSN = newCumulativeTSN
        self.streams = streams
    }
}

/// RE-CONFIG parameters (RFC 6525 §4).
public enum ReconfigParameter: Equatable, Sendable {
    public static let outgoingResetRequestType: UInt16 = 13
    public static let incomingResetRequestType: UInt16 = 14
    public static let responseType: UInt16 = 16
    public static let addOutgoingStreamsType: UInt16 = 17
    public static let addIncomingStreamsType: UInt16 = 18

    /// RFC 6525 §4.4 result codes.
    public enum Result {
        public static let successNothingToDo: UInt32 = 0
        public static let successPerformed: UInt32 = 1
        public static let denied: UInt32 = 2
        public static let errorWrongSSN: UInt32 = 3
        public static let errorRequestAlreadyInProgress: UInt32 = 4
        public static let errorBadSequenceNumber: UInt32 = 5
        public static let inProgress: UInt32 = 6
    }

    case outgoingResetRequest(requestSequence: UInt32, responseSequence: UInt32, senderLastTSN: UInt32, streams: [UInt16])
    case incomingResetRequest(requestSequence: UInt32, streams: [UInt16])
    case response(responseSequence: UInt32, result: UInt32)
    case addOutgoingStreams(requestSequence: UInt32, count: UInt16)
    case addIncomingStreams(requestSequence: UInt32, count: UInt16)
    case unknown(type: UInt16, value: [UInt8])
}
