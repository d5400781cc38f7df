import TestSupport
import Testing
@testable import SCTP

@Suite struct CodecTests {
    @Test func crc32cMatchesRFC3720Vectors() {
        #expect(CRC32c.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32c.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32c.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
        #expect(CRC32c.checksum((0..<32).map { UInt8(31 - $0) }) == 0x113F_DB5C)
        #expect(CRC32c.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    @Test func crc32cIsIndependentOfLengthAndAlignment() {
        var rng = SeededRandom(seed: 1)
        let data = (0..<3000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        for n in [0, 1, 7, 8, 9, 63, 1500, 2999] {
            var slow: UInt32 = 0xFFFF_FFFF
            for b in data[1..<(1 + n)] {
                slow ^= UInt32(b)
                for _ in 0..<8 { slow = (slow & 1) != 0 ? (slow >> 1) ^ 0x82F6_3B78 : slow >> 1 }
            }
            #expect(CRC32c.checksum(data[1..<(1 + n)]) == ~slow)
        }
    }

    /// An INIT as aiortc builds it, checked byte for byte against its encoder's layout.
    @Test func initEncodesWithExtensionParameters() {
        let i = InitChunk(initiateTag: 0x0102_0304, advertisedReceiverWindowCredit: 0x10_0000, outboundStreams: 65535,
                          inboundStreams: 65535, initialTSN: 7,
                          parameters: [.forwardTSNSupported, .supportedExtensions([ChunkType.reconfig, ChunkType.forwardTSN])])
        let p = SCTPPacket(sourcePort: 5000, destinationPort: 5000, verificationTag: 0, chunks: [.initiate(i)])
        let bytes = p.encode()
        // Chunk length 30: the last parameter's padding is not counted (RFC 9260 §3.2).
        let expectedChunk: [UInt8] = [1, 0, 0, 30, 1, 2, 3, 4, 0, 0x10, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 7,
                                      0xC0, 0, 0, 4, 0x80, 0x08, 0, 6, 0x82, 0xC0, 0, 0]
        #expect(Array(bytes[12...]) == expectedChunk)
        #expect(Array(bytes[0..<4]) == [0x13, 0x88, 0x13, 0x88])
        #expect(SCTPPacket.decode(bytes) == p)
    }

    @Test func everyChunkKindRoundTrips() {
        let data: [UInt8] = [1, 2, 3, 4, 5]
        let chunks: [SCTPChunk] = [
            .data(DataChunk(flags: 7, tsn: 99, streamID: 3, streamSequence: 4, ppid: 51, userData: data[...])),
            .sack(SackChunk(cumulativeTSNAck: 10, advertisedReceiverWindowCredit: 1000,
                            gapAckBlocks: [GapAckBlock(start: 2, end: 3), GapAckBlock(start: 5, end: 9)], duplicateTSNs: [4, 5])),
            .heartbeat(info: [0, 1, 0, 5, 9, 0, 0, 0][...].prefix(5)),
            .abort(reflectedTag: true, causes: [][...]),
            .shutdown(cumulativeTSNAck: 77), .shutdownAck, .cookieAck, .shutdownComplete(reflectedTag: false),
            .cookieEcho(cookie: data[...]),
            .error(causes: [0, 1, 0, 8, 0, 5, 0, 0][...]),
            .forwardTSN(ForwardTSNChunk(newCumulativeTSN: 5, streams: [.init(streamID: 1, streamSequence: 2)])),
            .reconfig([.outgoingResetRequest(requestSequence: 1, responseSequence: 2, senderLastTSN: 3, streams: [1, 3, 5]),
                       .response(responseSequence: 9, result: 1)]),
            .reconfig([.addOutgoingStreams(requestSequence: 4, count: 16)]),
            .unknown(type: 0xBF, flags: 1, value: data[...]),
        ]
        for c in chunks {
            let p = SCTPPacket(sourcePort: 1, destinationPort: 2, verificationTag: 3, chunks: [c, .cookieAck])
            let decoded = SCTPPacket.decode(p.encode())
            #expect(decoded == p, "\(c)")
            #expect(p.encode().count % 4 == 0)
        }
    }

    @Test func badChecksumIsRejected() {
        var bytes = SCTPPacket(sourcePort: 1, destinationPort: 2, verificationTag: 3, chunks: [.cookieAck]).encode()
        bytes[13] ^= 1
        #expect(SCTPPacket.decode(bytes) == nil)
    }

    @Test func randomTruncatedAndMutatedPacketsNeverCrash() {
        var rng = SeededRandom(seed: 99)
        let seeds: [[UInt8]] = [
            SCTPPacket(sourcePort: 5000, destinationPort: 5000, verificationTag: 1, chunks: [
                .sack(SackChunk(cumulativeTSNAck: 1, advertisedReceiverWindowCredit: 2, gapAckBlocks: [.init(start: 1, end: 2)], duplicateTSNs: [3])),
                .data(DataChunk(flags: 3, tsn: 2, streamID: 0, streamSequence: 0, ppid: 51, userData: [1, 2, 3][...])),
            ]).encode(),
            SCTPPacket(sourcePort: 5000, destinationPort: 5000, verificationTag: 0, chunks: [.initiate(InitChunk(
                initiateTag: 5, advertisedReceiverWindowCredit: 1, outboundStreams: 1, inboundStreams: 1, initialTSN: 1,
                parameters: [.stateCookie([1, 2, 3]), .forwardTSNSupported, .supportedExtensions([0x82])]))]).encode(),
            SCTPPacket(sourcePort: 5000, destinationPort: 5000, verificationTag: 1, chunks: [
                .reconfig([.outgoingResetRequest(requestSequence: 1, responseSequence: 2, senderLastTSN: 3, streams: [1])]),
                .forwardTSN(ForwardTSNChunk(newCumulativeTSN: 5, streams: [.init(streamID: 1, streamSequence: 2)])),
            ]).encode(),
        ]
        var decodedSome = 0
        for i in 0..<20_000 {
            var bytes: [UInt8]
            switch i % 3 {
            case 0:
                bytes = (0..<Int(rng.next() % 200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            case 1:
                let s = seeds[Int(rng.next() % UInt64(seeds.count))]
                bytes = Array(s.prefix(Int(rng.next() % UInt64(s.count + 1))))
            default:
                bytes = seeds[Int(rng.next() % UInt64(seeds.count))]
                for _ in 0..<(1 + rng.next() % 4) {
                    let at = 12 + Int(rng.next() % UInt64(bytes.count - 12))
                    bytes[at] = UInt8(truncatingIfNeeded: rng.next())
                }
            }
            // Skip the checksum so mutations reach the chunk decoders.
            if SCTPPacket.decode(bytes, verifyChecksum: false) != nil { decodedSome += 1 }
            _ = SCTPPacket.decode(bytes)
        }
        #expect(decodedSome > 0)
    }

    @Test func associationSurvivesFuzzedPackets() {
        let pair = connectedPair(profile: .clean, seed: 31)
        let a = pair.a, b = pair.b
        var rng = SeededRandom(seed: 32)
        var captured: [[UInt8]] = []
        pair.filter = { _, bytes in captured.append(bytes); return bytes }
        for i in 0..<20 { try? a.send(stream: 0, ppid: 53, bytes: payload(index: i, size: 2000)) }
        _ = pair.run(for: .seconds(5)) { false }
        for i in 0..<20_000 {
            guard var p = SCTPPacket.decode(captured[Int(rng.next() % UInt64(captured.count))]) else { continue }
            // Mutate fields of decoded chunks, then re-encode with a valid
            // checksum and the right tag so the association really processes them.
            p.verificationTag = i % 2 == 0 ? b.localTag : a.localTag
            p.chunks = p.chunks.map { c in
                switch c {
                case .data(var d):
                    d.tsn = d.tsn &+ UInt32(truncatingIfNeeded: Int(rng.next() % 200) - 100)
                    d.streamSequence = UInt16(truncatingIfNeeded: rng.next() % 8)
                    d.streamID = UInt16(truncatingIfNeeded: rng.next() % 4)
                    d.flags = UInt8(truncatingIfNeeded: rng.next() % 16)
                    return .data(d)
                case .sack(var s):
                    s.cumulativeTSNAck = s.cumulativeTSNAck &+ UInt32(truncatingIfNeeded: Int(rng.next() % 100) - 50)
                    s.gapAckBlocks = (0..<Int(rng.next() % 4)).map { _ in GapAckBlock(start: UInt16(truncatingIfNeeded: rng.next()), end: UInt16(truncatingIfNeeded: rng.next())) }
                    return .sack(s)
                default:
                    return rng.next() % 5 == 0 ? .forwardTSN(ForwardTSNChunk(newCumulativeTSN: UInt32(truncatingIfNeeded: rng.next()), streams: [.init(streamID: 1, streamSequence: UInt16(truncatingIfNeeded: rng.next()))])) : c
                }
            }
            let target = i % 2 == 0 ? b : a
            target.handleInput(packet: p.encode(), now: pair.now)
            while target.pollTransmit(now: pair.now) != nil {}
            while target.pollEvent() != nil {}
            pair.now += .milliseconds(1)
            if let t = target.pollTimeout(), t <= pair.now { target.handleTimeout(now: pair.now) }
        }
    }
}
