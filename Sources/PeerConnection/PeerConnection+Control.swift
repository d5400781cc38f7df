import ICE
import SCTP

/// The optional `ctl` channel (WireProtocol.md §3): JSON extras such as display
/// names, next to `chat`. Only the offerer opens it, right after `chat`, so
/// there is never a second one from a crossing OPEN; as the offerer is the
/// DTLS server (it offers `actpass`, we answer `active`), both channels get
/// odd stream ids (RFC 8832 §6). A peer that does not know the label just
/// never writes to it, and nothing here depends on it.
extension PeerConnection {
    public var isControlOpen: Bool { controlChannel != nil && !finished }

    /// The ICE state of the current path (`disconnected` once consent is lost).
    public var iceState: ICEState { agent.state }

    public func sendControl(_ text: String) throws(PeerConnectionError) {
        guard let sctp, let controlChannel, !finished else { throw .channelNotOpen(label: config.controlChannelLabel) }
        do {
            try sctp.send(text: text, on: controlChannel)
        } catch {
            throw .cannotSend(label: config.controlChannelLabel, error)
        }
        flush()
    }

    /// Failing to open the extras channel leaves the chat working, so it is not an error.
    func openControlChannel() {
        _ = try? sctp?.openChannel(label: config.controlChannelLabel)
    }

    /// Takes the data-channel events that belong to `ctl`; false for the rest.
    func handleControl(_ event: DataChannelEvent) -> Bool {
        switch event {
        case .channelOpen(let id, let label) where label == config.controlChannelLabel:
            // A second `ctl` (a confused peer) is ignored: the first one stays.
            if controlChannel == nil {
                controlChannel = id
                // The chat's lane (PeerConnection+Transport): what numbers, acknowledges or
                // announces chat lines (hello, ack, gap) leaves in order with them, never
                // behind every line queued after it.
                sctp?.association.setPriority(0, stream: id)
                events.append(.controlOpen)
            }
            return true
        case .message(let id, let message) where id == controlChannel:
            if case .text(let text) = message { events.append(.controlMessage(text)) }
            return true
        case .channelClosed(let id) where id == controlChannel:
            controlChannel = nil
            return true
        default:
            return false
        }
    }
}

/// Chat messages and their UTF-8 bytes each way, for `/status`.
public struct ChatCounters: Sendable, Equatable {
    public var messagesSent = 0
    public var bytesSent = 0
    public var messagesReceived = 0
    public var bytesReceived = 0
    public init() {}

    public mutating func countSent(_ text: String) {
        messagesSent += 1
        bytesSent += text.utf8.count
    }

    public mutating func countReceived(_ text: String) {
        messagesReceived += 1
        bytesReceived += text.utf8.count
    }
}
