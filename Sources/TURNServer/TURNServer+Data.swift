import STUN
import TURN

/// Send and Data indications and ChannelData (RFC 8656 §10–§12): nothing
/// is relayed without a live permission for the peer's IP, to a peer the
/// policy forbids, or over a bandwidth cap.
extension TURNServer {
    func sendIndication(_ message: STUNMessage, from tuple: FiveTuple, now: Duration) -> [TURNServerOutput] {
        guard let allocation = allocations[tuple], let peer = message.xorPeerAddress, let data = message.data else { return [] }
        return relayToPeer(data, peer: peer, allocation: allocation, now: now)
    }

    func channelData(_ bytes: [UInt8], from tuple: FiveTuple, now: Duration) -> [TURNServerOutput] {
        // decode refuses numbers outside 0x4000–0x4FFF and short frames (§12.6).
        guard let frame = ChannelData.decode(bytes), let allocation = allocations[tuple],
              let peer = allocation.peer(onChannel: frame.number, now: now)
        else { return [] }
        return relayToPeer(frame.data, peer: peer, allocation: allocation, now: now)
    }

    private func relayToPeer(_ data: [UInt8], peer: STUNAddress, allocation: ServerAllocation, now: Duration) -> [TURNServerOutput] {
        guard allocation.hasPermission(for: peer.ip, now: now) else { return [] }
        guard mayReach(peer) else {
            statistics.refusedPeers += 1
            return []
        }
        guard takeBandwidth(data.count, tuple: allocation.tuple, now: now) else { return [] }
        statistics.bytesToPeers += data.count
        statistics.packetsToPeers += 1
        // Another allocation's public address behind a 1:1 NAT: sent to
        // where it is bound (a NAT need not loop traffic back in).
        return [.toPeer(relay: allocation.relayed, peer: byAdvertised[peer] ?? peer, data)]
    }

    /// A datagram from `source` arrived on the relayed address `relay`: to
    /// the client as ChannelData when a channel is bound, else as a Data
    /// indication (§11.3); dropped without a permission.
    public func handlePeer(_ data: [UInt8], from source: STUNAddress, relay: STUNAddress, now: Duration) -> [TURNServerOutput] {
        // From another allocation here: its client knows it by its advertised address.
        let peer = byRelay[source].flatMap { allocations[$0]?.advertised } ?? source
        guard let tuple = byRelay[relay], let allocation = allocations[tuple],
              allocation.hasPermission(for: peer.ip, now: now)
        else { return [] }
        guard mayReach(peer) else {
            statistics.refusedPeers += 1
            return []
        }
        guard takeBandwidth(data.count, tuple: tuple, now: now) else { return [] }
        statistics.bytesToClients += data.count
        statistics.packetsToClients += 1
        if let number = allocation.channel(for: peer, now: now) {
            return [.toClient(tuple, ChannelData(number: number, data: data).encoded(padded: tuple.transport.isStream))]
        }
        // Nothing answers an indication, so its id need not be unpredictable: a counter.
        indicationCount &+= 1
        let id = STUNTransactionID(high: 0x6461_7461, low: indicationCount)
        let indication = STUNMessage(type: STUNMessageType(method: .data, messageClass: .indication),
                                     transactionID: id, attributes: [.xorPeerAddress(peer), .data(data)])
        return [.toClient(tuple, indication.encoded())]
    }

    private func takeBandwidth(_ bytes: Int, tuple: FiveTuple, now: Duration) -> Bool {
        guard allocations[tuple]?.bandwidth.take(bytes, now: now) == true, totalBandwidth.take(bytes, now: now) else {
            statistics.droppedOverBandwidth += 1
            return false
        }
        return true
    }
}
