import Redis
import Runtime
import Signaling
import Wire

/// This instance's two connections to Redis and its place in the cluster:
/// `commands` carries every state change (pipelined, in order), `reader`
/// blocks on `XREAD` for this instance's inbox and the wake-up stream.
///
/// The instance announces itself with a heartbeat key (`P inst:<id>`, TTL
/// `instanceTTL`, refreshed every `heartbeatInterval`); seats held through
/// an instance whose key expired are free. The reader resumes from the last
/// stream ids it saw after any reconnect, so no entry is skipped or read twice.
final class ClusterLink {
    static let heartbeatInterval = Duration.seconds(2)
    static let instanceTTLMilliseconds: Int64 = 8000
    static let readBlockMilliseconds = 2000

    let loop: EventLoop
    let prefix: String
    /// 16 random hex digits, new for every process.
    let instance: String
    let commands: RedisConnection
    let reader: RedisConnection
    let log: AccessLog

    /// A frame or probe for one of this instance's connections.
    var onInbox: ((ConnectionID, [String: String]) -> Void)?
    /// The inbox has been read through this entry (after its frames were handed over).
    var onInboxRead: ((StreamID) -> Void)?
    /// A room changed state (accepted, deleted, purged).
    var onWake: ((JoinCode) -> Void)?
    /// The command connection is ready (again): resend what may be lost.
    var onCommandsReady: (() -> Void)?
    /// A heartbeat went out (the first as soon as the command connection is ready).
    var onBeat: (() -> Void)?

    private var lastInbox = "0-0"
    private var lastWake: String?
    private var reading = false
    private var heartbeat: Timer?
    private var stopped = false
    /// nil until the first connection attempt ends, so a Redis that is down at start is logged too.
    private var wasHealthy: Bool?
    /// Heartbeat round trips, for `/metrics`.
    private(set) var roundTrips = RoundTripHistogram()

    init(loop: EventLoop, settings: RedisConnection.Settings, prefix: String, instance: String, log: AccessLog) {
        self.loop = loop
        self.prefix = prefix
        self.instance = instance
        self.log = log
        var commandSettings = settings
        commandSettings.setup = ClusterScripts.all.map(\.loadCommand)
        commands = RedisConnection(loop: loop, settings: commandSettings)
        reader = RedisConnection(loop: loop, settings: settings)
        commands.onReady = { [weak self] in self?.commandsReady() }
        reader.onReady = { [weak self] in self?.readerReady() }
        commands.onDown = { [weak self] reason in self?.down(reason) }
        reader.onDown = { [weak self] reason in self?.down(reason) }
    }

    var isHealthy: Bool { commands.isReady && reader.isReady }
    var lastError: String { commands.lastError ?? reader.lastError ?? "connecting" }

    func start() {
        commands.start()
        reader.start()
    }

    /// Runs a script with `P` and `now` before `arguments`.
    func run(_ script: RedisScript, now: UnixTime, _ arguments: [String], _ completion: @escaping RedisConnection.Completion) {
        commands.send(script.command([prefix, String(now.milliseconds)] + arguments), completion)
    }

    /// Leaves the cluster: the heartbeat key goes at once, so other
    /// instances free this one's seats without waiting for its TTL.
    func stop(_ done: @escaping () -> Void) {
        stopped = true
        heartbeat?.cancel()
        guard commands.isReady else { done(); return }
        commands.send(["DEL", prefix + "inst:" + instance]) { _ in done() }
    }

    // MARK: - Health and heartbeat

    private func commandsReady() {
        beat()
        checkHealth()
        onCommandsReady?()
    }

    private func beat() {
        heartbeat?.cancel()
        guard !stopped else { return }
        // After a gap (its key expired), the beat also takes back the seats
        // others freed meanwhile; sent first on a reconnect, before any resent command.
        let sent = loop.now
        run(ClusterHubScripts.beat, now: UnixTime(milliseconds: wallClockMilliseconds()),
            [instance, String(Self.instanceTTLMilliseconds)]) { [weak self] result in
            guard let self, case .success(let value) = result else { return }
            // Behind other pipelined commands it waits for them too, as every command on this link does.
            self.roundTrips.record(self.loop.now - sent)
            if let back = value.integer, back > 0 {
                self.log.write("seats_reclaimed", ["count": String(back)])
            }
        }
        onBeat?()
        heartbeat = loop.schedule(after: Self.heartbeatInterval) { [weak self] in
            guard let self, self.commands.isReady else { return }
            self.beat()
        }
    }

    private func down(_ reason: String) {
        checkHealth()
    }

    private func checkHealth() {
        let healthy = isHealthy
        guard healthy != wasHealthy else { return }
        // At start, one connection ready before the other is no news.
        if wasHealthy == nil && !healthy && commands.lastError == nil && reader.lastError == nil { return }
        wasHealthy = healthy
        if healthy {
            log.write("redis_up", ["url": commands.settings.url.redacted, "instance": instance])
        } else {
            log.write("redis_down", ["reason": lastError])
        }
    }

    // MARK: - Reading the streams

    private func readerReady() {
        checkHealth()
        reading = false
        if lastWake == nil {
            // Start after the newest wake-up: older ones were for polls
            // this new instance never held.
            reader.send(["XREVRANGE", prefix + "wake", "+", "-", "COUNT", "1"]) { [weak self] result in
                guard let self else { return }
                if case .success(let value) = result {
                    self.lastWake = value.elements?.first?.elements?.first?.string ?? "0-0"
                    self.read()
                }
            }
        } else {
            read()
        }
    }

    private func read() {
        guard !reading, !stopped, reader.isReady, let lastWake else { return }
        reading = true
        let command = [
            "XREAD", "COUNT", "512", "BLOCK", String(Self.readBlockMilliseconds), "STREAMS",
            prefix + "inbox:" + instance, prefix + "wake", lastInbox, lastWake,
        ]
        reader.send(command, allowance: .milliseconds(Int64(Self.readBlockMilliseconds))) { [weak self] result in
            guard let self else { return }
            self.reading = false
            guard case .success(let value) = result else { return }   // readerReady restarts
            self.consume(value)
            self.read()
        }
    }

    private func consume(_ reply: RESPValue) {
        let before = lastInbox
        defer { if lastInbox != before, let id = StreamID(lastInbox) { onInboxRead?(id) } }
        for stream in reply.elements ?? [] {
            guard let parts = stream.elements, parts.count == 2, let name = parts[0].string else { continue }
            let isInbox = name == prefix + "inbox:" + instance
            for entry in parts[1].elements ?? [] {
                guard let pair = entry.elements, pair.count == 2, let id = pair[0].string else { continue }
                let list = pair[1].elements ?? []
                var fields: [String: String] = [:]
                var i = 0
                while i + 1 < list.count {
                    if let key = list[i].string, let value = list[i + 1].string { fields[key] = value }
                    i += 2
                }
                if isInbox {
                    lastInbox = id
                    if let to = fields["to"].flatMap({ UInt64($0) }) { onInbox?(ConnectionID(to), fields) }
                } else {
                    lastWake = id
                    if let code = fields["code"].flatMap({ JoinCode($0) }) { onWake?(code) }
                }
            }
        }
    }
}
