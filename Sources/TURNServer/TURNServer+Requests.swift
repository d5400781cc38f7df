import STUN
import TURN

/// Allocate, Refresh, CreatePermission and ChannelBind (RFC 8656 §7–§12).
extension TURNServer {
    func request(_ message: STUNMessage, bytes: [UInt8], from tuple: FiveTuple, now: Duration, unixTime: Int64) -> [TURNServerOutput] {
        let method = message.type.method, id = message.transactionID
        let unknown = message.unknownComprehensionRequiredAttributes
        guard unknown.isEmpty else { return [reply(error: .unknownAttribute, method: method, id: id, to: tuple, extra: [.unknownAttributes(unknown)])] }
        if method == .binding {
            return [.toClient(tuple, success(method: .binding, id: id, to: tuple, attributes: [.xorMappedAddress(tuple.client)], key: nil))]
        }
        guard [.allocate, .refresh, .createPermission, .channelBind].contains(method) else {
            return [reply(error: .badRequest, method: method, id: id, to: tuple)]
        }
        // A retransmitted Allocate gets the same answer, before the nonce
        // it carried can have gone stale (§7.2, the 437 exception).
        if method == .allocate, let allocation = allocations[tuple], allocation.allocateTransaction == id {
            return [.toClient(tuple, allocation.allocateResponse)]
        }
        let credentials: Credentials
        switch authenticate(message, bytes: bytes, from: tuple, now: now, unixTime: unixTime) {
        case .success(let found): credentials = found
        case .failure(let refusal): return [refusal.output]
        }
        if method == .allocate { return allocate(message, from: tuple, credentials: credentials, now: now) }
        guard var allocation = allocations[tuple] else {
            return [reply(error: .allocationMismatch, method: method, id: id, to: tuple, key: credentials.key)]
        }
        guard allocation.username == credentials.username else {
            return [reply(error: .wrongCredentials, method: method, id: id, to: tuple, key: credentials.key)]
        }
        allocation.purge(now: now)
        allocations[tuple] = allocation
        switch method {
        case .refresh: return refresh(message, allocation: allocation, now: now)
        case .createPermission: return createPermission(message, allocation: allocation, now: now)
        default: return channelBind(message, allocation: allocation, now: now)
        }
    }

    private func allocate(_ message: STUNMessage, from tuple: FiveTuple, credentials: Credentials, now: Duration) -> [TURNServerOutput] {
        let id = message.transactionID, key = credentials.key
        func refuse(_ code: STUNErrorCode, _ extra: [STUNAttribute] = []) -> [TURNServerOutput] {
            [reply(error: code, method: .allocate, id: id, to: tuple, extra: extra, key: key)]
        }
        if allocations[tuple] != nil { return refuse(.allocationMismatch) }
        // Another Allocate while the socket is being opened: the answer to the first is coming.
        if pending.contains(tuple) { return [] }
        var transport: UInt8?
        for case .requestedTransport(let value) in message.attributes { transport = value }
        guard let transport else { return refuse(.badRequest) }
        guard transport == 17 else { return refuse(.unsupportedTransportProtocol) }
        // Features this relay does not offer: DONT-FRAGMENT (§7.2 says to
        // treat it as unknown) and RESERVATION-TOKEN (no port is ever reserved).
        let unsupported = message.attributes.map(\.type).filter { [.dontFragment, .reservationToken].contains($0) }
        if !unsupported.isEmpty { return refuse(.unknownAttribute, [.unknownAttributes(unsupported)]) }
        // EVEN-PORT: an even port is easy; reserving the next one (R) is not offered (§7.2: 508).
        var evenPort = false
        for case .evenPort(let reserveNext) in message.attributes {
            if reserveNext { return refuse(.insufficientCapacity) }
            evenPort = true
        }
        var family = TURNFamily.ipv4
        for case .requestedAddressFamily(let requested) in message.attributes { family = requested == .ipv4 ? .ipv4 : .ipv6 }
        guard configuration.relayFamilies.contains(family) else { return refuse(.addressFamilyNotSupported) }
        if perUser[credentials.user, default: 0] >= configuration.allocationsPerUser
            || perClientAddress[tuple.client.ip, default: 0] + pending.filter({ $0.client.ip == tuple.client.ip }).count >= configuration.allocationsPerClientAddress {
            return refuse(.allocationQuotaReached)
        }
        if allocations.count + pending.count >= configuration.maxAllocations { return refuse(.insufficientCapacity) }
        pending.insert(tuple)
        let pendingAllocation = PendingAllocation(
            tuple: tuple, family: family, transactionID: id, username: credentials.username, user: credentials.user,
            key: key, lifetime: grantedLifetime(message.lifetime), evenPort: evenPort)
        return [.openRelay(pendingAllocation)]
    }

    /// The owner opened (or failed to open) the relayed socket for `allocation`.
    public func relayOpened(_ allocation: PendingAllocation, address: STUNAddress?, now: Duration) -> [TURNServerOutput] {
        let tuple = allocation.tuple, id = allocation.transactionID
        guard pending.remove(tuple) != nil else { return address.map { [.closeRelay($0)] } ?? [] }
        guard let address, !allocation.evenPort || address.port % 2 == 0 else {
            return [reply(error: .insufficientCapacity, method: .allocate, id: id, to: tuple, key: allocation.key)]
        }
        let lifetimeSeconds = UInt32(clamping: allocation.lifetime.components.seconds)
        let advertised = advertisedAddress(of: address)
        let response = success(method: .allocate, id: id, to: tuple, attributes: [
            .xorRelayedAddress(advertised), .lifetime(lifetimeSeconds), .xorMappedAddress(tuple.client),
        ], key: allocation.key)
        allocations[tuple] = ServerAllocation(
            tuple: tuple, relayed: address, advertised: advertised, username: allocation.username, user: allocation.user, key: allocation.key,
            expiry: now + allocation.lifetime, bandwidth: TokenBucket(rate: configuration.bandwidthPerAllocation, now: now),
            allocateTransaction: id, allocateResponse: response)
        byRelay[address] = tuple
        if advertised != address { byAdvertised[advertised] = address }
        perUser[allocation.user, default: 0] += 1
        perClientAddress[tuple.client.ip, default: 0] += 1
        statistics.allocations = allocations.count
        statistics.allocationsCreated += 1
        return [.toClient(tuple, response)]
    }

    /// The public twin of a bound relayed address behind a 1:1 NAT, else itself.
    private func advertisedAddress(of relayed: STUNAddress) -> STUNAddress {
        guard let external = configuration.externalAddresses.first(where: { $0.advertises(relayed) }),
              let address = STUNAddress(ip: external.public, port: relayed.port)
        else { return relayed }
        return address
    }

    /// RFC 8656 §7.2: at least the default, at most the maximum.
    private func grantedLifetime(_ requested: UInt32?) -> Duration {
        let asked = Duration.seconds(Int64(requested ?? 0))
        return min(max(asked, configuration.defaultLifetime), configuration.maxLifetime)
    }

    private func refresh(_ message: STUNMessage, allocation: ServerAllocation, now: Duration) -> [TURNServerOutput] {
        let tuple = allocation.tuple, id = message.transactionID
        for case .requestedAddressFamily(let family) in message.attributes where (family == .ipv4) != (allocation.relayed.family == .ipv4) {
            return [reply(error: .peerAddressFamilyMismatch, method: .refresh, id: id, to: tuple, key: allocation.key)]
        }
        if message.lifetime == 0 {
            let answer = success(method: .refresh, id: id, to: tuple, attributes: [.lifetime(0)], key: allocation.key)
            return delete(tuple) + [.toClient(tuple, answer)]
        }
        // §7.3: the default when absent, never more than the maximum.
        let asked = message.lifetime.map { Duration.seconds(Int64($0)) } ?? configuration.defaultLifetime
        let lifetime = min(asked, configuration.maxLifetime)
        allocations[tuple]?.expiry = now + lifetime
        let seconds = UInt32(clamping: lifetime.components.seconds)
        return [.toClient(tuple, success(method: .refresh, id: id, to: tuple, attributes: [.lifetime(seconds)], key: allocation.key))]
    }

    private func createPermission(_ message: STUNMessage, allocation: ServerAllocation, now: Duration) -> [TURNServerOutput] {
        let tuple = allocation.tuple, id = message.transactionID, key = allocation.key
        let peers = message.attributes.compactMap { if case .xorPeerAddress(let peer) = $0 { peer } else { nil } }
        guard !peers.isEmpty else { return [reply(error: .badRequest, method: .createPermission, id: id, to: tuple, key: key)] }
        // All or nothing (§9.2): check every peer before installing any.
        for peer in peers {
            guard peer.family == allocation.relayed.family else {
                return [reply(error: .peerAddressFamilyMismatch, method: .createPermission, id: id, to: tuple, key: key)]
            }
            guard mayReach(peer) else {
                statistics.refusedPeers += 1
                return [reply(error: .forbidden, method: .createPermission, id: id, to: tuple, key: key)]
            }
        }
        let newIPs = Set(peers.map(\.ip)).subtracting(allocation.permissions.keys)
        guard allocation.permissions.count + newIPs.count <= configuration.permissionsPerAllocation else {
            return [reply(error: .insufficientCapacity, method: .createPermission, id: id, to: tuple, key: key)]
        }
        for peer in peers { allocations[tuple]?.permissions[peer.ip] = now + TURNServerConfiguration.permissionLifetime }
        return [.toClient(tuple, success(method: .createPermission, id: id, to: tuple, attributes: [], key: key))]
    }

    private func channelBind(_ message: STUNMessage, allocation: ServerAllocation, now: Duration) -> [TURNServerOutput] {
        let tuple = allocation.tuple, id = message.transactionID, key = allocation.key
        func refuse(_ code: STUNErrorCode) -> [TURNServerOutput] { [reply(error: code, method: .channelBind, id: id, to: tuple, key: key)] }
        var number: UInt16?
        for case .channelNumber(let value) in message.attributes { number = value }
        guard let number, ChannelData.validNumbers.contains(number), let peer = message.xorPeerAddress else { return refuse(.badRequest) }
        guard peer.family == allocation.relayed.family else { return refuse(.peerAddressFamilyMismatch) }
        guard mayReach(peer) else {
            statistics.refusedPeers += 1
            return refuse(.forbidden)
        }
        // §11.2: a number bound to another peer, or a peer bound to another number, is refused.
        if let bound = allocation.channels[number], bound.peer != peer { return refuse(.badRequest) }
        if let other = allocation.channelByPeer[peer], other != number { return refuse(.badRequest) }
        if allocation.permissions[peer.ip] == nil, allocation.permissions.count >= configuration.permissionsPerAllocation {
            return refuse(.insufficientCapacity)
        }
        allocations[tuple]?.channels[number] = (peer, now + TURNServerConfiguration.channelLifetime)
        allocations[tuple]?.channelByPeer[peer] = number
        // §11.2: binding a channel installs or refreshes the permission too.
        allocations[tuple]?.permissions[peer.ip] = now + TURNServerConfiguration.permissionLifetime
        return [.toClient(tuple, success(method: .channelBind, id: id, to: tuple, attributes: [], key: key))]
    }

    /// The peer policy, plus the relayed addresses of this server's own
    /// allocations (exact address, bound or advertised), which two relayed
    /// clients need.
    func mayReach(_ peer: STUNAddress) -> Bool {
        if byRelay[peer] != nil || byAdvertised[peer] != nil { return true }
        return configuration.peerPolicy.verdict(for: peer) == .allowed
    }
}
