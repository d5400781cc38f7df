import Redis
import Runtime
import Signaling
import Wire

/// Wiring of `serve --redis`: the Redis link, router and hub, and their
/// callbacks into the service.
extension SignalingService {
    static func clusterParts(
        loop: EventLoop, config: ServerConfiguration, redis: RedisConnection.Settings,
        iceServers: ICEServerConfiguration, log: AccessLog
    ) throws(ServerError) -> (RoomRegistry?, any RequestRouting, any SignalingRelay, ClusterLink?) {
        var random = SystemRandomNumberGenerator()
        let instance = Hex.encode((0..<8).map { _ in UInt8.random(in: 0...255, using: &random) })
        let link = ClusterLink(loop: loop, settings: redis, prefix: config.redisKeyPrefix, instance: instance, log: log)
        // The embedded router answers what needs no rooms (ICE servers,
        // unknown paths); its registry stays empty.
        let local: RoomRegistry
        do {
            local = try RoomRegistry(store: InMemoryRoomStore(), random: SystemRandomNumberGenerator())
        } catch {
            throw .database(path: "memory", reason: error.message)
        }
        let rest = RESTRouter(registry: local, iceServers: iceServers, random: SystemRandomNumberGenerator())
        let router = ClusterRouter(rest: rest, link: link, limit: config.missedAcceptsPerMinute, windowSeconds: 60,
                                   maxRooms: config.maxRooms, random: SystemRandomNumberGenerator())
        let hub = ClusterHub(link: link, random: SystemRandomNumberGenerator())
        return (nil, router, hub, link)
    }

    func startCluster() {
        guard let cluster, let router = router as? ClusterRouter, let hub = hub as? ClusterHub else { return }
        router.onCompletion = { [weak self] in
            guard let self else { return }
            for (token, response) in self.router.pollCompletedLongPolls() { self.finishLongPoll(token, response) }
        }
        hub.onOutbound = { [weak self] outbound in self?.deliver(outbound) }
        hub.onProbe = { [weak self] connection in self?.probe(connection) }
        cluster.onInbox = { [weak hub] connection, fields in hub?.inbox(connection, fields) }
        cluster.onInboxRead = { [weak hub] id in hub?.inboxRead(through: id) }
        cluster.onWake = { [weak router] code in router?.wake(code) }
        cluster.onCommandsReady = { [weak hub] in hub?.commandsReady() }
        if sharesRelaySecret { cluster.onBeat = { [weak self] in self?.offerRelaySecret() } }
        cluster.start()
    }

    /// Draining: the WebSockets are closed (their clients reconnect through
    /// the load balancer to another instance); the seats they held are
    /// freed, then this instance's heartbeat key goes, so nobody waits for
    /// its TTL. Bounded: a Redis that does not answer does not hold the exit.
    func leaveCluster(_ done: @escaping () -> Void) {
        guard let cluster, let hub = hub as? ClusterHub else { return done() }
        var finished = false
        let finish = {
            guard !finished else { return }
            finished = true
            done()
        }
        loop.schedule(after: .seconds(2)) { finish() }
        func waitForOutbox() {
            if hub.pendingCommands == 0 || !cluster.commands.isReady {
                cluster.stop(finish)
            } else {
                loop.schedule(after: .milliseconds(20)) { waitForOutbox() }
            }
        }
        waitForOutbox()
    }
}
