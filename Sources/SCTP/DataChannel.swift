/// The DTLS role decides stream-id parity (RFC 8832 §6): the DTLS client
/// opens channels on even stream ids, the server on odd ones.
public enum DTLSRole: Sendable {
    case client, server
}

/// A message on a data channel.
public enum DataChannelMessage: Equatable, Sendable {
    case text(String)
    case binary([UInt8])
}

/// What the application learns from a ``DataChannelEndpoint``.
public enum DataChannelEvent: Equatable, Sendable {
    /// The SCTP association is up.
    case connected
    /// A channel opened by us (OPEN sent) or by the peer (OPEN received).
    case channelOpen(id: UInt16, label: String)
    case message(channelID: UInt16, DataChannelMessage)
    /// The peer sent a message on this channel larger than our
    /// `maxMessageSize`: it was discarded, the peer's stack was told, and
    /// the channel goes on with the next message.
    case messageTooLarge(channelID: UInt16)
    /// The channel was closed by either side (stream reset).
    case channelClosed(id: UInt16)
    /// The association ended; no further events follow.
    case closed(SCTPCloseReason)
}

/// Public description of a channel.
public struct DataChannelInfo: Equatable, Sendable {
    public let id: UInt16
    public let label: String
    public let protocolName: String
    public let ordered: Bool
    public let isOpen: Bool
}

/// Per-channel state inside the endpoint.
struct DataChannel {
    let id: UInt16
    let label: String
    let protocolName: String
    let ordered: Bool
    /// We opened it and still wait for DATA_CHANNEL_ACK: send ordered until then.
    var awaitingAck: Bool
    /// OPEN not yet sent because the association was not up.
    var openPending: Bool
    var closing = false
    var closedReported = false
    var outgoingReset = false
    var incomingReset = false

    var info: DataChannelInfo {
        DataChannelInfo(id: id, label: label, protocolName: protocolName, ordered: ordered, isOpen: !closing && !closedReported && !openPending)
    }
}

extension SCTPError {
    public static let unknownChannel = SCTPError(code: "unknown_channel")
    public static let channelClosed = SCTPError(code: "channel_closed")
    public static let noFreeStream = SCTPError(code: "no_free_stream")
}
