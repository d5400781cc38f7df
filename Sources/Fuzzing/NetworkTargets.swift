@_spi(Fuzzing) import DTLS
import ICE
import SCTP
import SDP
import STUN
import TURN

/// Decoders for what arrives from the network before any authentication:
/// STUN and TURN on the ICE socket, SDP and candidates from the peer via the
/// server, DTLS records, and SCTP/DCEP inside the DTLS association.
extension FuzzTarget {
    static let networkTargets: [FuzzTarget] = [
        FuzzTarget(name: "stun", summary: "STUN messages (RFC 8489): decode, attributes, integrity, fingerprint", run: stun),
        FuzzTarget(name: "turn", summary: "TURN framing: ChannelData and the STUN/ChannelData stream framer (RFC 8656)", run: turn),
        FuzzTarget(name: "sctp", summary: "SCTP packets and chunks (RFC 9260), checksum, encode round trip", run: sctp),
        FuzzTarget(name: "dtls", summary: "DTLS record framing filter (RFC 6347 §4.1) and SDP fingerprints", run: dtls),
        FuzzTarget(name: "sdp", summary: "SDP offers and answers (RFC 8866, RFC 8841)", run: sdp),
        FuzzTarget(name: "ice", summary: "ICE candidate attributes (RFC 8839 §5.1)", run: ice),
        FuzzTarget(name: "dcep", summary: "DCEP messages (RFC 8832)", run: dcep),
    ]

    @Sendable static func stun(_ data: [UInt8]) {
        _ = STUNMessage.isSTUN(data)
        _ = STUNMessage.frameLength(of: data[...])
        _ = STUNMessage.verifyFingerprint(of: data)
        _ = STUNMessage.verifyIntegrity(of: data, key: STUNKey(bytes: Array("fuzz".utf8)))
        guard let message = try? STUNMessage.decode(data) else { return }
        _ = message.unknownComprehensionRequiredAttributes
        _ = (message.xorMappedAddress, message.mappedAddress, message.otherAddress, message.responseOrigin,
             message.alternateServer, message.xorPeerAddress, message.xorRelayedAddress)
        _ = (message.username, message.realm, message.nonce, message.software, message.errorCode)
        _ = (message.unknownAttributes, message.priority, message.lifetime, message.data)
        let encoded = message.encoded()
        FuzzCheck.expect((try? STUNMessage.decode(encoded)) == message, "a decoded STUN message re-encodes to itself")
    }

    @Sendable static func turn(_ data: [UInt8]) {
        if let frame = ChannelData.decode(data) {
            FuzzCheck.expect(ChannelData.decode(frame.encoded(padded: true)) == frame, "ChannelData round trip")
        }
        var framer = TURNStreamFramer()
        for piece in StreamInput(data).pieces {
            framer.append(Array(piece))
            while let frame = framer.next() {
                switch frame {
                case .stun(let bytes): _ = try? STUNMessage.decode(bytes)
                case .channelData(let bytes):
                    // Reserved numbers (0x5000–0x7FFF) are framed by length, then discarded.
                    let number = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
                    FuzzCheck.expect(ChannelData.decode(bytes) != nil || !ChannelData.validNumbers.contains(number), "a framed ChannelData decodes")
                }
            }
            FuzzCheck.expect(framer.bufferedCount <= 65_536 + 20 + piece.count, "the TURN framer's buffer stays bounded")
        }
    }

    @Sendable static func sctp(_ data: [UInt8]) {
        _ = SCTPPacket.decode(data)
        guard let packet = SCTPPacket.decode(data, verifyChecksum: false) else { return }
        let encoded = packet.encode()
        FuzzCheck.expect(SCTPPacket.decode(encoded) == packet, "a decoded SCTP packet re-encodes to itself")
    }

    @Sendable static func dtls(_ data: [UInt8]) {
        guard let mode = data.first else { return }
        let datagram = Array(data.dropFirst())
        // Handshake (epochs 0–1) or connected (epoch 1); AES-GCM, ChaCha20 or CBC minimums.
        let handshake = mode & 1 == 0, minimum = [24, 16, 32, 24][Int(mode >> 1 & 3)]
        if let filtered = RecordFilterProbe.filter(datagram, handshake: handshake, minimumEncryptedLength: minimum) {
            FuzzCheck.expect(filtered.count <= datagram.count, "the record filter never adds bytes")
            FuzzCheck.expect(
                RecordFilterProbe.filter(filtered, handshake: handshake, minimumEncryptedLength: minimum) == filtered,
                "the record filter keeps what it kept")
        }
        if let fingerprint = Fingerprint(sdpValue: String(decoding: datagram, as: UTF8.self)) {
            FuzzCheck.expect(Fingerprint(sdpValue: fingerprint.description) == fingerprint, "a fingerprint round trips")
        }
    }

    @Sendable static func sdp(_ data: [UInt8]) {
        guard let description = try? SessionDescription.parse(String(fuzzBytes: data)) else { return }
        // The writer states the role and mid it assumes when the peer gave none.
        var expected = description
        expected.setup = description.setup ?? .actpass
        expected.mid = description.mid ?? "0"
        FuzzCheck.expect((try? SessionDescription.parse(description.serialized())) == expected, "a parsed SDP re-serializes to itself")
    }

    @Sendable static func ice(_ data: [UInt8]) {
        guard let candidate = ICECandidate(sdpAttribute: String(fuzzBytes: data)) else { return }
        FuzzCheck.expect(ICECandidate(sdpAttribute: candidate.sdpAttribute) == candidate, "a candidate round trips")
    }

    @Sendable static func dcep(_ data: [UInt8]) {
        guard let message = DCEPMessage.decode(data) else { return }
        FuzzCheck.expect(DCEPMessage.decode(message.encode()) == message, "a DCEP message round trips")
    }
}
