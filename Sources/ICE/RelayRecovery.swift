import STUN
import TURN

/// Keeping relayed candidates through a session's life: an allocation can
/// be lost under a live chat (the TURN server restarted, the TCP stream to
/// it broke, our NAT rebound and the server sees a new 5-tuple, RFC 8656
/// §5), and an ICE restart must not offer a relayed address that no longer
/// exists.
extension ICEAgent {
    /// The least time between two replacements of one server's allocation,
    /// so a server that keeps failing is not hammered.
    static let reallocationInterval: Duration = .seconds(5)

    /// A lost allocation that once existed is replaced by a fresh one
    /// (new Allocate, new relayed address, trickled as a new candidate).
    /// One that never came up (bad credentials, no answer) is not retried:
    /// gathering already reported why. `throttled`: not again within
    /// `reallocationInterval` (a restart asks regardless).
    func reallocate(_ index: Int, throttled: Bool = true) {
        let relay = relays[index]
        guard !relaysClosing, relay.everAllocated, relay.client.isClosed else { return }
        if throttled, let last = relay.reallocatedAt, now < last + Self.reallocationInterval { return }
        relays[index].client = TURNClient(
            server: relay.server, transport: relay.transport, username: relay.username, password: relay.password,
            now: now, random: random)
        relays[index].reallocatedAt = now
        relays[index].startedAt = now
        relays[index].relayed = nil
        relays[index].mapped = nil
        relays[index].finished = false
        relays[index].failure = nil
        gatheringCompleteSent = false
        collectRelayTransmits(index)
    }

    /// The host base a UDP allocation was made from is gone (the network
    /// changed): the allocation went with its 5-tuple. It is made again at
    /// once from another base of the server's family, or from the next one
    /// that appears (`adoptOrphanRelays`).
    func moveRelays(off address: STUNAddress) {
        for index in relays.indices where relays[index].transport == .udp && relays[index].hostBase == address {
            relays[index].hostBase = routableHostBases.first { $0.family == relays[index].server.family }
            relays[index].client.handleTransportClosed(now: now, reason: .localAddressGone("\(address)"))
            reallocateNow(index)
        }
    }

    /// A new base takes over the UDP allocations that had none left.
    func adoptOrphanRelays(_ address: STUNAddress) {
        for index in relays.indices where relays[index].transport == .udp && relays[index].hostBase == nil
            && relays[index].server.family == address.family && relays[index].everAllocated && !address.isLinkLocal {
            relays[index].hostBase = address
            reallocateNow(index)
        }
    }

    /// Reports the loss (`drainRelay`), then allocates again unthrottled.
    private func reallocateNow(_ index: Int) {
        drainRelay(index)
        reallocate(index, throttled: false)
    }

    /// On an ICE restart, each relayed candidate is offered again only once
    /// its allocation proves alive: a Refresh is sent at once, and the
    /// candidate is re-added when it succeeds (`.refreshed`). A failing one
    /// is replaced (`.failed` → `reallocate`), as is one already lost.
    func verifyRelays() {
        for index in relays.indices {
            if relays[index].client.isAllocated {
                relays[index].finished = false
                relays[index].startedAt = now
                relays[index].client.refresh(now: now)
                collectRelayTransmits(index)
            } else {
                reallocate(index, throttled: false)
            }
        }
    }
}
