/// Writes chunks in wire format, each padded to a multiple of four bytes.
enum ChunkEncoder {
    /// Bytes `encode` will append, padding included.
    static func encodedSize(_ chunk: SCTPChunk) -> Int {
        switch chunk {
        case .data(let d): return pad4(16 + d.userData.count)
        case .sack(let s): return 16 + 4 * (s.gapAckBlocks.count + s.duplicateTSNs.count)
        default:
            var tmp: [UInt8] = []
            encode(chunk, into: &tmp)
            return tmp.count
        }
    }

    @inline(__always) static func pad4(_ n: Int) -> Int { (n + 3) & ~3 }

    static func encode(_ chunk: SCTPChunk, into out: inout [UInt8]) {
        switch chunk {
        case .data(let d):
            out.append(ChunkType.data)
            out.append(d.flags)
            out.appendU16(UInt16(truncatingIfNeeded: 16 + d.userData.count))
            out.appendU32(d.tsn)
            out.appendU16(d.streamID)
            out.appendU16(d.streamSequence)
            out.appendU32(d.ppid)
            out.append(contentsOf: d.userData)
            out.padTo4()
        case .initiate(let i): writeInit(ChunkType.initiate, i, into: &out)
        case .initAck(let i): writeInit(ChunkType.initAck, i, into: &out)
        case .sack(let s):
            out.append(ChunkType.sack)
            out.append(0)
            out.appendU16(UInt16(truncatingIfNeeded: 16 + 4 * (s.gapAckBlocks.count + s.duplicateTSNs.count)))
            out.appendU32(s.cumulativeTSNAck)
            out.appendU32(s.advertisedReceiverWindowCredit)
            out.appendU16(UInt16(truncatingIfNeeded: s.gapAckBlocks.count))
            out.appendU16(UInt16(truncatingIfNeeded: s.duplicateTSNs.count))
            for g in s.gapAckBlocks {
                out.appendU16(g.start)
                out.appendU16(g.end)
            }
            for d in s.duplicateTSNs { out.appendU32(d) }
        case .heartbeat(let info): writeRaw(ChunkType.heartbeat, 0, info, into: &out)
        case .heartbeatAck(let info): writeRaw(ChunkType.heartbeatAck, 0, info, into: &out)
        case .abort(let t, let causes): writeRaw(ChunkType.abort, t ? 1 : 0, causes, into: &out)
        case .shutdown(let cum):
            writeHeader(ChunkType.shutdown, 0, 8, into: &out)
            out.appendU32(cum)
        case .shutdownAck: writeHeader(ChunkType.shutdownAck, 0, 4, into: &out)
        case .error(let causes): writeRaw(ChunkType.error, 0, causes, into: &out)
        case .cookieEcho(let cookie): writeRaw(ChunkType.cookieEcho, 0, cookie, into: &out)
        case .cookieAck: writeHeader(ChunkType.cookieAck, 0, 4, into: &out)
        case .shutdownComplete(let t): writeHeader(ChunkType.shutdownComplete, t ? 1 : 0, 4, into: &out)
        case .forwardTSN(let f):
            writeHeader(ChunkType.forwardTSN, 0, 8 + 4 * f.streams.count, into: &out)
            out.appendU32(f.newCumulativeTSN)
            for s in f.streams {
                out.appendU16(s.streamID)
                out.appendU16(s.streamSequence)
            }
        case .reconfig(let params):
            let start = out.count
            writeHeader(ChunkType.reconfig, 0, 4, into: &out)
            for (i, p) in params.enumerated() {
                // Padding goes between parameters but is not counted after the last.
                if i > 0 { out.padTo4() }
                writeReconfig(p, into: &out)
            }
            setLength(out.count - start, at: start, in: &out)
            out.padTo4()
        case .unknown(let type, let flags, let value): writeRaw(type, flags, value, into: &out)
        }
    }

    static func writeHeader(_ type: UInt8, _ flags: UInt8, _ length: Int, into out: inout [UInt8]) {
        out.append(type)
        out.append(flags)
        out.appendU16(UInt16(truncatingIfNeeded: length))
    }

    static func setLength(_ length: Int, at index: Int, in out: inout [UInt8]) {
        out[index + 2] = UInt8(truncatingIfNeeded: length >> 8)
        out[index + 3] = UInt8(truncatingIfNeeded: length)
    }

    static func writeRaw(_ type: UInt8, _ flags: UInt8, _ value: ArraySlice<UInt8>, into out: inout [UInt8]) {
        writeHeader(type, flags, 4 + value.count, into: &out)
        out.append(contentsOf: value)
        out.padTo4()
    }

    static func writeTLV(_ type: UInt16, _ value: some Collection<UInt8>, into out: inout [UInt8]) {
        out.appendU16(type)
        out.appendU16(UInt16(truncatingIfNeeded: 4 + value.count))
        out.append(contentsOf: value)
    }

    static func writeInit(_ type: UInt8, _ i: InitChunk, into out: inout [UInt8]) {
        let start = out.count
        writeHeader(type, 0, 20, into: &out)
        out.appendU32(i.initiateTag)
        out.appendU32(i.advertisedReceiverWindowCredit)
        out.appendU16(i.outboundStreams)
        out.appendU16(i.inboundStreams)
        out.appendU32(i.initialTSN)
        for p in i.parameters {
            out.padTo4()
            switch p {
            case .stateCookie(let c): writeTLV(InitParameter.stateCookieType, c, into: &out)
            case .forwardTSNSupported: writeTLV(InitParameter.forwardTSNSupportedType, [UInt8](), into: &out)
            case .supportedExtensions(let t): writeTLV(InitParameter.supportedExtensionsType, t, into: &out)
            case .unknown(let t, let v): writeTLV(t, v, into: &out)
            }
        }
        setLength(out.count - start, at: start, in: &out)
        out.padTo4()
    }

    static func writeReconfig(_ p: ReconfigParameter, into out: inout [UInt8]) {
        var v: [UInt8] = []
        let type: UInt16
        switch p {
        case .outgoingResetRequest(let req, let resp, let last, let streams):
            type = ReconfigParameter.outgoingResetRequestType
            v.appendU32(req); v.appendU32(resp); v.appendU32(last)
            for s in streams { v.appendU16(s) }
        case .incomingResetRequest(let req, let streams):
            type = ReconfigParameter.incomingResetRequestType
            v.appendU32(req)
            for s in streams { v.appendU16(s) }
        case .response(let resp, let result):
            type = ReconfigParameter.responseType
            v.appendU32(resp); v.appendU32(result)
        case .addOutgoingStreams(let req, let n), .addIncomingStreams(let req, let n):
            if case .addOutgoingStreams = p { type = ReconfigParameter.addOutgoingStreamsType } else { type = ReconfigParameter.addIncomingStreamsType }
            v.appendU32(req); v.appendU16(n); v.appendU16(0)
        case .unknown(let t, let value):
            type = t
            v = value
        }
        writeTLV(type, v, into: &out)
    }
}
