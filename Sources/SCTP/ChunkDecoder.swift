import Wire

/// Decodes chunk bodies. Every read is bounds-checked through `ByteReader`;
/// an inconsistent known chunk yields nil.
enum ChunkDecoder {
    static func decode(type: UInt8, flags: UInt8, body: ByteReader) -> SCTPChunk? {
        var r = body
        switch type {
        case ChunkType.data:
            guard let tsn = r.readU32(), let sid = r.readU16(), let ssn = r.readU16(), let ppid = r.readU32() else { return nil }
            return .data(DataChunk(flags: flags, tsn: tsn, streamID: sid, streamSequence: ssn, ppid: ppid, userData: r.rest()))
        case ChunkType.initiate, ChunkType.initAck:
            guard let i = decodeInit(&r) else { return nil }
            return type == ChunkType.initiate ? .initiate(i) : .initAck(i)
        case ChunkType.sack:
            guard let cum = r.readU32(), let rwnd = r.readU32(), let nGaps = r.readU16(), let nDups = r.readU16(),
                  r.remaining >= 4 * (Int(nGaps) + Int(nDups)) else { return nil }
            var gaps: [GapAckBlock] = []
            gaps.reserveCapacity(Int(nGaps))
            for _ in 0..<nGaps {
                guard let s = r.readU16(), let e = r.readU16() else { return nil }
                gaps.append(GapAckBlock(start: s, end: e))
            }
            var dups: [UInt32] = []
            for _ in 0..<nDups {
                guard let d = r.readU32() else { return nil }
                dups.append(d)
            }
            return .sack(SackChunk(cumulativeTSNAck: cum, advertisedReceiverWindowCredit: rwnd, gapAckBlocks: gaps, duplicateTSNs: dups))
        case ChunkType.heartbeat: return .heartbeat(info: r.rest())
        case ChunkType.heartbeatAck: return .heartbeatAck(info: r.rest())
        case ChunkType.abort: return .abort(reflectedTag: flags & 1 != 0, causes: r.rest())
        case ChunkType.shutdown:
            guard let cum = r.readU32() else { return nil }
            return .shutdown(cumulativeTSNAck: cum)
        case ChunkType.shutdownAck: return .shutdownAck
        case ChunkType.error: return .error(causes: r.rest())
        case ChunkType.cookieEcho: return .cookieEcho(cookie: r.rest())
        case ChunkType.cookieAck: return .cookieAck
        case ChunkType.shutdownComplete: return .shutdownComplete(reflectedTag: flags & 1 != 0)
        case ChunkType.forwardTSN:
            guard let cum = r.readU32() else { return nil }
            var streams: [ForwardTSNChunk.Skipped] = []
            while r.remaining >= 4 {
                guard let sid = r.readU16(), let ssn = r.readU16() else { return nil }
                streams.append(.init(streamID: sid, streamSequence: ssn))
            }
            return .forwardTSN(ForwardTSNChunk(newCumulativeTSN: cum, streams: streams))
        case ChunkType.reconfig:
            var params: [ReconfigParameter] = []
            while r.remaining >= 4 {
                guard let (ptype, value) = readTLV(&r), let p = decodeReconfig(type: ptype, value: value) else { return nil }
                params.append(p)
            }
            return .reconfig(params)
        default:
            return .unknown(type: type, flags: flags, value: r.rest())
        }
    }

    /// Reads one Type-Length-Value parameter and skips its padding.
    static func readTLV(_ r: inout ByteReader) -> (UInt16, ByteReader)? {
        guard let type = r.readU16(), let length = r.readU16(), length >= 4,
              let value = r.readSlice(Int(length) - 4) else { return nil }
        _ = r.skip(min(r.remaining, (4 - Int(length) % 4) % 4))
        return (type, value)
    }

    static func decodeInit(_ r: inout ByteReader) -> InitChunk? {
        guard let tag = r.readU32(), let rwnd = r.readU32(), let os = r.readU16(), let mis = r.readU16(),
              let tsn = r.readU32() else { return nil }
        var params: [InitParameter] = []
        while r.remaining >= 4 {
            guard let (ptype, value) = readTLV(&r) else { return nil }
            var v = value
            switch ptype {
            case InitParameter.stateCookieType: params.append(.stateCookie(Array(v.rest())))
            case InitParameter.forwardTSNSupportedType: params.append(.forwardTSNSupported)
            case InitParameter.supportedExtensionsType: params.append(.supportedExtensions(Array(v.rest())))
            default:
                params.append(.unknown(type: ptype, value: v.readBytes(v.remaining) ?? []))
                // Upper bits 00/01 of an unrecognized type: stop processing
                // further parameters (RFC 9260 §3.2.1). Address, cookie
                // preservative and address-type parameters (5, 6, 9, 11, 12),
                // which usrsctp sends, are understood and simply not needed here.
                if ptype & 0x8000 == 0 && ![5, 6, 9, 11, 12].contains(ptype) { return InitChunk(initiateTag: tag, advertisedReceiverWindowCredit: rwnd, outboundStreams: os, inboundStreams: mis, initialTSN: tsn, parameters: params) }
            }
        }
        return InitChunk(initiateTag: tag, advertisedReceiverWindowCredit: rwnd, outboundStreams: os,
                         inboundStreams: mis, initialTSN: tsn, parameters: params)
    }

    static func decodeReconfig(type: UInt16, value: ByteReader) -> ReconfigParameter? {
        var v = value
        switch type {
        case ReconfigParameter.outgoingResetRequestType:
            guard let req = v.readU32(), let resp = v.readU32(), let last = v.readU32() else { return nil }
            return .outgoingResetRequest(requestSequence: req, responseSequence: resp, senderLastTSN: last, streams: readStreams(&v))
        case ReconfigParameter.incomingResetRequestType:
            guard let req = v.readU32() else { return nil }
            return .incomingResetRequest(requestSequence: req, streams: readStreams(&v))
        case ReconfigParameter.responseType:
            guard let resp = v.readU32(), let result = v.readU32() else { return nil }
            return .response(responseSequence: resp, result: result)
        case ReconfigParameter.addOutgoingStreamsType, ReconfigParameter.addIncomingStreamsType:
            guard let req = v.readU32(), let n = v.readU16() else { return nil }
            return type == ReconfigParameter.addOutgoingStreamsType
                ? .addOutgoingStreams(requestSequence: req, count: n) : .addIncomingStreams(requestSequence: req, count: n)
        default:
            return .unknown(type: type, value: Array(v.rest()))
        }
    }

    static func readStreams(_ r: inout ByteReader) -> [UInt16] {
        var out: [UInt16] = []
        while let s = r.readU16() { out.append(s) }
        return out
    }
}
