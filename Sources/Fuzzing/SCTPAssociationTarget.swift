import SCTP

/// The SCTP receive path beyond decoding: a data-channel endpoint with an
/// established association (handshake done in process, deterministically)
/// is fed the fuzz input as a sequence of packets, as a peer inside the DTLS
/// association could send them. The harness sets each packet's verification
/// tag and checksum, which a peer knows and the fuzzer cannot guess, so the
/// inputs reach reassembly, SACK, FORWARD-TSN and RE-CONFIG processing.
///
/// Input: records of `[flags u8][length u16][packet]`; flags bit 0 keeps the
/// packet's own verification tag, bits 1–7 advance the clock (×10 ms) and
/// fire due timers first. The endpoint's answers go back to its peer.
extension FuzzTarget {
    static let sctpAssociation = FuzzTarget(
        name: "sctp-association",
        summary: "packets into an established SCTP association with data channels (RFC 9260, RFC 8831)",
        run: sctpAssociationRun)

    @Sendable static func sctpAssociationRun(_ data: [UInt8]) {
        var random = SplitMix64(seed: 9260)
        let client = DataChannelEndpoint(role: .client, using: &random)
        let server = DataChannelEndpoint(role: .server, using: &random)
        var now = Duration.seconds(1000)
        var serverTag: UInt32?

        /// Delivers everything both sides send until neither has more (bounded).
        func exchange() {
            for _ in 0..<32 {
                var moved = false
                while let packet = client.pollTransmit(now: now) {
                    if serverTag == nil { serverTag = SCTPPacket.decode(packet)?.verificationTag }
                    server.handleInput(packet: packet, now: now)
                    moved = true
                }
                while let packet = server.pollTransmit(now: now) {
                    client.handleInput(packet: packet, now: now)
                    moved = true
                }
                while client.pollEvent() != nil {}
                while server.pollEvent() != nil {}
                if !moved { return }
            }
        }

        client.connect(now: now)
        exchange()
        FuzzCheck.expect(client.isConnected && server.isConnected, "the in-process SCTP handshake completes")
        if let id = try? client.openChannel(label: "chat") {
            try? client.send(text: "hello", on: id)
        }
        exchange()
        guard let tag = serverTag else { return }

        var index = 0
        while index + 3 <= data.count {
            let flags = data[index]
            let length = Int(data[index + 1]) << 8 | Int(data[index + 2])
            index += 3
            let end = min(data.count, index + length)
            let bytes = Array(data[index..<end])
            index = end
            if flags >> 1 != 0 {
                now += .milliseconds(10 * Int(flags >> 1))
                if let due = server.pollTimeout(), due <= now { server.handleTimeout(now: now) }
                if let due = client.pollTimeout(), due <= now { client.handleTimeout(now: now) }
            }
            guard var packet = SCTPPacket.decode(bytes, verifyChecksum: false) else { continue }
            if flags & 1 == 0 { packet.verificationTag = tag }
            server.handleInput(packet: packet.encode(), now: now)
            exchange()
        }
    }
}
