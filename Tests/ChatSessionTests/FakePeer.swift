@testable import ChatClient
import ICE
import PeerConnection
import SCTP

/// An in-memory stand-in for a WebRTC peer connection: SDP that names the
/// process's "certificate", a link the `World` brings up once both sides
/// negotiated, ordered reliable `chat` and `ctl` channels over the world's
/// emulated network, and SCTP-style acknowledgement counts. What a connection does on the wire is
/// PeerConnection's job (tested with it); here only its contract matters.
final class FakePeer: PeerTransport {
    let world: World
    let owner: String
    /// Stands for the DTLS certificate: one per saved session (a resumed process keeps it).
    let certificate: String
    /// Stands for `a=tls-id`: one per connection.
    let association: Int
    var remoteAssociation: Int?
    var peerRunsCodePAKE = false
    let isOfferer: Bool
    let speaksControl: Bool
    /// Names its streams in the `World`'s network.
    let serial: Int
    var remoteCertificate: String?
    var ufrag = 0
    weak var other: FakePeer?
    var isOpen = false
    var isControlOpen = false
    var pathDown = false
    var closed = false
    var dead = false
    var chatMessagesAcknowledged = 0
    var sentOnChat = 0
    /// Every `ctl` message sent (the PAKE's, `hello`, acks, names).
    var sentControl: [String] = []
    var restarts = 0
    /// What the world delivered, until the session polls it.
    var events: [PeerConnectionEvent] = []
    var routesChannels = false
    var channelEvents: [DataChannelEvent] = []
    var openChannels: Set<UInt16> = []
    lazy var nextChannel: UInt16 = isOfferer ? 2 : 3
    /// File bytes sent and not yet delivered (SCTP's send buffer).
    var bufferedAmount = 0

    init(world: World, owner: String, certificate: String, association: Int, isOfferer: Bool, speaksControl: Bool) {
        self.world = world
        self.owner = owner
        self.certificate = certificate
        self.association = association
        self.isOfferer = isOfferer
        self.speaksControl = speaksControl
        serial = world.nextPeerSerial
        world.nextPeerSerial += 1
    }

    var canRestartICE: Bool { isOpen && !closed }
    var isPathDown: Bool { pathDown }
    var selectedPath: String? { isOpen ? "host" : nil }
    var connectionInfo: ConnectionInfo? { isOpen ? info : nil }
    var isFullyAcknowledged: Bool { chatMessagesAcknowledged == sentOnChat }
    var info: ConnectionInfo {
        ConnectionInfo(path: "host", local: "host 10.0.0.1:1", remote: "host 10.0.0.2:2",
                       sas: [certificate, remoteCertificate ?? ""].sorted().joined(separator: "+"), rttMilliseconds: 10)
    }

    func createOffer() -> String {
        ufrag += 1
        return "fake offer cert=\(certificate) tls=\(association) pake=\(speaksControl) ufrag=\(ufrag)"
    }

    func acceptOffer(_ sdp: String) throws(PeerConnectionError) -> String {
        guard let cert = Self.cert(sdp), let tls = Self.association(sdp) else { throw .noFingerprint }
        remoteCertificate = cert
        remoteAssociation = tls
        peerRunsCodePAKE = sdp.contains("pake=true")
        world.offered(self, by: cert, association: tls)
        return "fake answer cert=\(certificate) tls=\(association) pake=\(speaksControl) ufrag=\(ufrag)"
    }

    func acceptAnswer(_ sdp: String) throws(PeerConnectionError) {
        guard let cert = Self.cert(sdp), let tls = Self.association(sdp) else { throw .noFingerprint }
        if let remoteAssociation, remoteCertificate != cert || remoteAssociation != tls { throw .certificateChanged }
        remoteCertificate = cert
        remoteAssociation = tls
        peerRunsCodePAKE = sdp.contains("pake=true")
        world.answered(self, by: tls)
    }

    func isSameSession(_ sdp: String) -> Bool {
        isOpen && Self.cert(sdp) == remoteCertificate && Self.association(sdp) == remoteAssociation
    }

    func restartICE() -> String {
        restarts += 1
        return createOffer()
    }

    func addRemoteCandidate(_ candidate: String?) {}

    func pollEvent() -> PeerConnectionEvent? { events.isEmpty ? nil : events.removeFirst() }
    var selectedPair: ICEPair? { nil }

    // File transfers' channels: ordered and reliable on the world's streams,
    // beside `chat` and `ctl`; the offerer's ids are even, the answerer's odd.

    func openChannel(label: String, protocolName: String) throws(PeerConnectionError) -> UInt16 {
        guard isOpen, !closed else { throw .notConnected }
        let id = nextChannel
        nextChannel += 2
        openChannels.insert(id)
        world.transmit(from: self, channel: .channelOpen(id: id, label: label))
        return id
    }

    func pollChannelEvent() -> DataChannelEvent? { channelEvents.isEmpty ? nil : channelEvents.removeFirst() }

    func send(binary: [UInt8], on channel: UInt16) throws(PeerConnectionError) {
        guard isOpen, !closed, openChannels.contains(channel) else { throw .channelNotOpen(label: "file") }
        bufferedAmount += binary.count
        world.transmit(from: self, channel: .message(channelID: channel, .binary(binary)), size: binary.count)
    }

    func closeChannel(_ channel: UInt16) {
        guard openChannels.remove(channel) != nil, isOpen, !closed else { return }
        world.transmit(from: self, channel: .channelClosed(id: channel))
    }

    func flushChannels() {}

    /// A channel event from the other side: kept for the session if it routes them.
    func arrived(_ event: DataChannelEvent) {
        switch event {
        case .channelOpen(let id, _): openChannels.insert(id)
        case .channelClosed(let id): openChannels.remove(id)
        default: break
        }
        if routesChannels { channelEvents.append(event) }
    }

    func send(text: String) throws(PeerConnectionError) {
        guard isOpen, !closed else { throw .channelNotOpen(label: "chat") }
        sentOnChat += 1
        world.transmit(from: self, .message(text))
    }

    func sendControl(_ text: String) throws(PeerConnectionError) {
        guard isControlOpen, !closed else { throw .channelNotOpen(label: "ctl") }
        sentControl.append(text)
        world.transmit(from: self, .controlMessage(text))
    }

    func close() {
        guard !closed else { return }
        closed = true
        if other != nil, !dead { world.transmit(from: self, .closed) }
    }

    /// The "certificate"'s fingerprint; a server in the middle (`World.interceptor`)
    /// makes each side see its own certificate where the peer's should be.
    var localCertificateFingerprint: [UInt8] { Self.fingerprint(certificate) }
    var remoteCertificateFingerprint: [UInt8]? {
        guard let remoteCertificate else { return nil }
        // `World.interceptedMembers`: only the connections of those members are intercepted.
        let targeted = world.interceptedMembers.map { names in names.contains(owner) || other.map { names.contains($0.owner) } == true } ?? true
        guard targeted else { return Self.fingerprint(remoteCertificate) }
        return Self.fingerprint(world.interceptor.map { "\($0)-\(certificate)" } ?? remoteCertificate)
    }

    static func fingerprint(_ name: String) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        for (i, b) in name.utf8.enumerated() { bytes[i % 32] = bytes[i % 32] &* 31 &+ b }
        return bytes
    }

    static func cert(_ sdp: String) -> String? {
        sdp.split(separator: " ").first { $0.hasPrefix("cert=") }.map { String($0.dropFirst(5)) }
    }

    static func association(_ sdp: String) -> Int? {
        sdp.split(separator: " ").first { $0.hasPrefix("tls=") }.flatMap { Int($0.dropFirst(4)) }
    }
}
