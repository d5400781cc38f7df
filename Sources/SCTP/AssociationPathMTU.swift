/// Driving `PathMTUSearch` from the association: probes out, acks in,
/// the packet size in use (`packetSize`) and the congestion window's MTU
/// following what was confirmed.
extension SCTPAssociation {
    /// Heartbeat Information TLV (type 1) of a probe: "PMTU", the size, a nonce.
    static let probeMarker: [UInt8] = Array("PMTU".utf8)

    /// The largest SCTP packet sent now: the base until a probe confirmed more.
    public var packetSize: Int { pathMTU.size }

    func sendPathMTUProbeIfDue() {
        guard state == .established, peerTag != 0,
              let probe = pathMTU.nextProbe(now: now, timeout: max(rto.rto, .seconds(1))) else { return }
        var info: [UInt8] = []
        info.appendU16(1)   // Heartbeat Info
        info.appendU16(16)
        info += Self.probeMarker
        info.appendU32(UInt32(probe.size))
        info.appendU32(probe.nonce)
        var out: [UInt8] = []
        out.reserveCapacity(probe.size)
        SCTPPacket.writeHeader(into: &out, sourcePort: config.localPort, destinationPort: config.remotePort, verificationTag: peerTag)
        ChunkEncoder.encode(.heartbeat(info: info[...]), into: &out)
        // PAD (RFC 4820, type 0x84: skipped silently by receivers) fills the rest.
        let padLength = probe.size - out.count
        if padLength >= 4 {
            out.append(ChunkType.pad)
            out.append(0)
            out.appendU16(UInt16(padLength))
            out += [UInt8](repeating: 0, count: padLength - 4)
        }
        SCTPPacket.finalize(&out)
        outbox.append(out)
        statistics.pathMTUProbes += 1
    }

    func handleHeartbeatAck(_ info: ArraySlice<UInt8>) {
        let bytes = Array(info)
        guard bytes.count == 16, bytes[0] == 0, bytes[1] == 1, Array(bytes[4..<8]) == Self.probeMarker else { return }
        let nonce = UInt32(bytes[12]) << 24 | UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15])
        if pathMTU.acknowledged(nonce: nonce) { congestion.mtu = pathMTU.size }
        sendPathMTUProbeIfDue()
    }

    func handlePathMTUTimeout() {
        pathMTU.probeTimedOut(now: now)
        sendPathMTUProbeIfDue()
    }

    /// A T3 expiry with large packets in flight may be a black hole (RFC 8899 §4.3).
    func checkPathMTUBlackHole() {
        if errorCount >= 2, pathMTU.blackHole() { congestion.mtu = pathMTU.size }
    }
}
