import Foundation
import STUN
import TestSupport
import Testing

/// `chatcli serve --redis` as a cluster, with real parts: a Debian
/// `redis-server`, three instances, and HAProxy (round robin, no stickiness)
/// in front. Each test starts its own Redis, so rate limits and rooms never
/// leak between tests.
@Suite(.ownThread, .serialized, .enabled(if: RedisProcess.isInstalled && FileManager.default.isExecutableFile(atPath: "/usr/sbin/haproxy")))
struct ClusterTests {
    static func code() -> String { String(format: "%06d", Int.random(in: 0..<1_000_000)) }

    @Test func peersOnDifferentInstancesPairAndChat() throws {
        let cluster = try ClusterFixture(instances: 2, haproxy: false)
        let alice = try ChildProcess.chatcli(["create", "--server", cluster.instances[0].url, "--json", "--no-store"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", cluster.instances[1].url, "--json", "--no-store"], name: "bob")
        alice.write("from alice\n")
        bob.write("from bob\n")
        #expect(alice.waitForEvent("connected", timeout: 30) != nil, "\(alice.transcript)\n\(cluster.transcripts)")
        #expect(bob.waitForMessages(count: 1) == ["from alice"], "\(bob.transcript)")
        #expect(alice.waitForMessages(count: 1) == ["from bob"], "\(alice.transcript)")
        // Each instance held one of the two WebSockets.
        #expect(cluster.instances.allSatisfy { $0.process.stderr.contains { $0.contains("event=ws_open") } }, "\(cluster.transcripts)")
        alice.closeInput()
        #expect(alice.waitForExit() == 0)
        #expect(bob.waitForEvent("peer_left") != nil, "\(bob.transcript)")
    }

    /// HAProxy carries HTTP only, so each instance names its own relay
    /// (`--turn-host`, on its own STUN and HTTP ports): `/api/ice-servers`
    /// through the balancer answers with the relay of whichever instance
    /// answered. Members on two instances chat relay-only, each relaying on
    /// its own instance, relayed address to relayed address across them (a
    /// private block here, so `--turn-allow-peer`; public addresses pass the
    /// default policy). No secret file: the instances share one through
    /// Redis, so any instance's credentials work on every relay.
    @Test func eachInstanceAdvertisesItsOwnRelayAndMembersRelayedOnTwoInstancesChat() throws {
        let hosts = ["127.0.0.2", "127.0.0.3"]
        let cluster = try ClusterFixture(instances: 2, extra: ["--turn-allow-peer", "127.0.0.0/8"], hosts: hosts)
        for instance in cluster.instances { #expect(Self.waitForRelaySecret(instance, "shared"), "\(instance.process.transcript)") }
        var advertised: Set<[String]> = []
        for _ in 0..<2 {
            let response = REST.request("GET", port: cluster.haproxyPort, "/api/ice-servers")
            let json = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
            let turn = (json?["iceServers"] as? [[String: Any]])?.first { $0["username"] != nil }
            advertised.insert(turn?["urls"] as? [String] ?? ["\(response)"])
        }
        let expected = zip(hosts, cluster.instances).map { host, instance in
            ["turn:\(host):\(instance.stunPort)?transport=udp", "turn:\(host):\(instance.port)?transport=tcp"]
        }
        #expect(advertised == Set(expected), "\(cluster.transcripts)")

        let alice = try ChildProcess.chatcli(["create", "--server", cluster.instances[0].url, "--json", "--no-store", "--relay-only"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", cluster.instances[1].url, "--json", "--no-store", "--relay-only"], name: "bob")
        alice.write("relayed by instance \(hosts[0])\n")
        bob.write("relayed by instance \(hosts[1])\n")
        let connected = try #require(alice.waitForEvent("connected", timeout: 30), "\(alice.transcript)\n\(cluster.transcripts)")
        #expect((connected["local"] as? String)?.hasPrefix("relay \(hosts[0]):") == true, "\(connected)")
        #expect((connected["remote"] as? String)?.hasPrefix("relay \(hosts[1]):") == true, "\(connected)")
        #expect(bob.waitForMessages(count: 1, timeout: 30) == ["relayed by instance \(hosts[0])"], "\(bob.transcript)")
        #expect(alice.waitForMessages(count: 1, timeout: 30) == ["relayed by instance \(hosts[1])"], "\(alice.transcript)")
        alice.closeInput()
        #expect(alice.waitForExit(timeout: 30) == 0, "\(alice.transcript)")
        #expect(bob.waitForEvent("peer_left", timeout: 30) != nil, "\(bob.transcript)")
    }

    /// Without `--turn-secret-file` the instances share one relay secret in
    /// Redis: credentials one instance issued allocate on another's relay.
    /// A flushed Redis gets the same secret back from the instances, so
    /// nothing issued before is refused; a secret an operator puts there
    /// instead is adopted by every instance, and credentials issued before
    /// it still allocate.
    @Test func credentialsIssuedByOneInstanceAllocateOnAnothersRelayThroughASecretSharedInRedis() throws {
        let cluster = try ClusterFixture(instances: 2, haproxy: false)
        let (a, b) = (cluster.instances[0], cluster.instances[1])
        for instance in cluster.instances { #expect(Self.waitForRelaySecret(instance, "shared"), "\(instance.process.transcript)") }
        let fromA = try Self.turnCredentials(a)
        #expect(try TURNProbe(port: b.stunPort).allocate(username: fromA.username, password: fromA.password) == 0, "\(cluster.transcripts)")

        let key = "chatcli:turn-secret"
        let stored = cluster.redis.cli("GET", key)
        #expect(stored.first?.count == 64, "\(stored)")
        _ = cluster.redis.cli("FLUSHALL")
        #expect(waitFor { cluster.redis.cli("GET", key) == stored }, "\(cluster.redis.cli("GET", key))")
        #expect(try TURNProbe(port: a.stunPort).allocate(username: fromA.username, password: fromA.password) == 0)

        let replaced = String(repeating: "5a", count: 32)
        _ = cluster.redis.cli("SET", key, replaced)
        for instance in cluster.instances { #expect(Self.waitForRelaySecret(instance, "replaced"), "\(instance.process.transcript)") }
        let fromB = try Self.turnCredentials(b)
        #expect(fromB.password == RESTCredential.password(secret: Array(repeating: 0x5a, count: 32), username: fromB.username))
        #expect(try TURNProbe(port: a.stunPort).allocate(username: fromB.username, password: fromB.password) == 0)
        #expect(try TURNProbe(port: b.stunPort).allocate(username: fromA.username, password: fromA.password) == 0)
    }

    static func waitForRelaySecret(_ instance: ClusterInstance, _ state: String) -> Bool {
        instance.process.waitForLine(stderr: true, timeout: 15) { $0.contains("event=relay_secret") && $0.contains("state=\(state)") } != nil
    }

    /// The TURN entry an instance's `/api/ice-servers` hands out.
    static func turnCredentials(_ instance: ClusterInstance) throws -> (username: String, password: String) {
        let response = HTTPExchange.send("GET", port: instance.port, "/api/ice-servers")
        let turn = try #require((response.body["iceServers"] as? [[String: Any]])?.first { $0["username"] != nil }, "\(response)")
        return (try #require(turn["username"] as? String), try #require(turn["credential"] as? String))
    }

    /// `rediss://`: TLS through the project's OpenSSL client, the server
    /// verified against a CA file, the password from the environment.
    @Test func instancesReachRedisOverTLSWithAPasswordFromTheEnvironment() throws {
        let cluster = try ClusterFixture(instances: 2, haproxy: false, redis: RedisProcess(tls: true, password: "s3cret-\(UInt32.random(in: 0...UInt32.max))"))
        let alice = try ChildProcess.chatcli(["create", "--server", cluster.instances[0].url, "--json", "--no-store"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)\n\(cluster.transcripts)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", cluster.instances[1].url, "--json", "--no-store"], name: "bob")
        bob.write("over tls\n")
        #expect(alice.waitForMessages(count: 1) == ["over tls"], "\(alice.transcript)\n\(cluster.transcripts)")
        bob.closeInput()
        #expect(bob.waitForExit() == 0)
        // A wrong password is one clear line in the log, and the instance stays unhealthy.
        let wrong = try ClusterInstance(redis: cluster.redis.url, extra: ["--redis-ca", try #require(cluster.redis.certificates).caFile],
                                        environment: ["CHATCLI_REDIS_PASSWORD": "wrong"], waitFor: "event=redis_down")
        #expect(wrong.process.stderr.contains { $0.contains("authentication failed") }, "\(wrong.process.transcript)")
        #expect(HTTPExchange.send("GET", port: wrong.port, "/healthz").status == 503)
    }

    @Test func independentConformanceClientPassesThroughHAProxy() throws {
        // On one host the instances cannot share a STUN port; they name one,
        // as instances behind a UDP load balancer would.
        let cluster = try ClusterFixture(extra: ["--public-stun-port", "3478"])
        let script = Harness.packageRoot + "/Tests/EndToEndTests/Python/signaling_api_check.py"
        let python = try ChildProcess(Harness.pythonPath, [script, cluster.url, "3478"], name: "python")
        let status = python.waitForExit(timeout: 180)
        #expect(status == 0, "\(python.transcript)\n\(cluster.transcripts)")
        #expect(python.stdout.last?.hasSuffix("checks passed") == true, "\(python.transcript)")
    }

    @Test func aLongPollIsAnsweredWhenAnotherInstanceAccepts() throws {
        let cluster = try ClusterFixture(instances: 2, haproxy: false)
        let code = Self.code()
        let (a, b) = (cluster.instances[0].port, cluster.instances[1].port)
        #expect(HTTPExchange.send("POST", port: a, "/api/rooms", ["joinid": code, "expiresInSeconds": 600, "client1": "waiting-alice"]).status == 201)
        let answered = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var poll: HTTPExchange?
        DispatchQueue.global().async {
            poll = HTTPExchange.send("POST", port: a, "/api/rooms/check?wait=30", ["joinid": code, "client1": "waiting-alice"])
            answered.signal()
        }
        // Accept only once instance A holds the poll parked (its /healthz says how many in X-Long-Polls).
        #expect(waitFor { HTTPExchange.send("GET", port: a, "/healthz").header("X-Long-Polls") == "1" })
        let accept = HTTPExchange.send("POST", port: b, "/api/rooms/accept", ["joinid": code, "client2": "joining-bob"])
        #expect(accept.status == 200)
        #expect(answered.wait(timeout: .now() + 60) == .success)
        // Unwoken, the poll would answer 204 after its 30 s.
        #expect(poll?.status == 200, "\(String(describing: poll))\n\(cluster.transcripts)")
        #expect(poll?.body["roomid"] as? String == accept.body["roomid"] as? String)
    }

    /// Ten misses from one client, spread by HAProxy over three instances,
    /// limit that client everywhere; another client (HAProxy names each in
    /// X-Forwarded-For) is not limited, and cannot pass for the first.
    @Test func theRateLimitHoldsAcrossInstancesBehindHAProxy() throws {
        let cluster = try ClusterFixture(instances: 3)
        let port = cluster.haproxyPort
        for _ in 0..<10 {
            let miss = HTTPExchange.send("POST", port: port, "/api/rooms/accept", ["joinid": Self.code(), "client2": "sweeper-1"], source: "127.0.0.2")
            #expect(miss.status == 404, "\(miss)")
        }
        for _ in 0..<3 {
            let limited = HTTPExchange.send("POST", port: port, "/api/rooms/accept", ["joinid": Self.code(), "client2": "sweeper-1"], source: "127.0.0.2")
            #expect(limited.status == 429, "\(limited)")
            #expect(Int(limited.header("Retry-After") ?? "") ?? 0 > 0)
        }
        // Every instance answered some of them.
        #expect(cluster.instances.allSatisfy { $0.process.stderr.contains { $0.contains("path=/api/rooms/accept") } }, "\(cluster.transcripts)")
        let other = HTTPExchange.send("POST", port: port, "/api/rooms/accept", ["joinid": Self.code(), "client2": "bystander-1"],
                                      source: "127.0.0.3", headers: "X-Forwarded-For: 127.0.0.2\r\n")
        #expect(other.status == 404, "\(other)")
    }

    @Test func aRedisRestartIs503WithRetryAfterThenRecoversWithEveryRoom() throws {
        let cluster = try ClusterFixture(instances: 2, haproxy: false)
        let port = cluster.instances[0].port
        let code = Self.code()
        #expect(HTTPExchange.send("POST", port: port, "/api/rooms", ["joinid": code, "expiresInSeconds": 600, "client1": "survivor-1"]).status == 201)
        cluster.redis.kill()
        // The instance notices at its next command or read; wait for it.
        #expect(cluster.instances[0].process.waitForLine(stderr: true, timeout: 20) { $0.contains("event=redis_down") } != nil)
        let health = HTTPExchange.send("GET", port: port, "/healthz")
        #expect(health.status == 503 && health.header("Retry-After") != nil, "\(health)")
        let create = HTTPExchange.send("POST", port: port, "/api/rooms", ["joinid": Self.code(), "expiresInSeconds": 600, "client1": "during-1"])
        #expect(create.status == 503 && create.body["error"] as? String == "unavailable" && create.header("Retry-After") != nil, "\(create)")
        try cluster.redis.start()
        for instance in cluster.instances {
            #expect(instance.process.waitForLine(stderr: true, timeout: 30) { $0.contains("event=redis_up") && !$0.isEmpty } != nil)
        }
        // Each instance finds Redis back at its own next command: wait for every one of them.
        for instance in cluster.instances {
            #expect(waitFor { HTTPExchange.send("GET", port: instance.port, "/healthz").status == 200 }, "\(instance.process.transcript)")
        }
        // The room made before the restart is still pending, on both instances.
        for instance in cluster.instances {
            #expect(HTTPExchange.send("POST", port: instance.port, "/api/rooms/check", ["joinid": code, "client1": "survivor-1"]).status == 204)
        }
    }

    @Test func relayedFramesKeepTheirOrderAcrossARedisRestart() throws {
        let cluster = try ClusterFixture(instances: 2, haproxy: false)
        let script = Harness.packageRoot + "/Tests/EndToEndTests/Python/cluster_relay_order.py"
        let python = try ChildProcess(Harness.pythonPath, [script, cluster.instances[0].url, cluster.instances[1].url, "400"], name: "python")
        #expect(python.waitForLine(timeout: 60) { $0 == "sending" } != nil, "\(python.transcript)")
        // A few frames in, Redis dies and comes back.
        _ = python.waitForLine(timeout: 1) { _ in false }
        cluster.redis.kill()
        try cluster.redis.start()
        #expect(python.waitForExit(timeout: 120) == 0, "\(python.transcript)\n\(cluster.transcripts)")
        #expect(python.stdout.last == "relay ok 400", "\(python.transcript)")
        // Both instances lost Redis while frames were flowing, and came back.
        for instance in cluster.instances {
            let log = instance.process.stderr
            #expect(log.contains { $0.contains("event=redis_down") } && log.filter { $0.contains("event=redis_up") }.count == 2, "\(cluster.transcripts)")
        }
    }

    /// A pong and an error made by the instance itself come after the
    /// frames of the join and leave sent before them, which pass through Redis.
    @Test func repliesMadeByTheInstanceKeepTheirPlaceBehindFramesThroughRedis() throws {
        let cluster = try ClusterFixture(instances: 2, haproxy: false)
        let script = Harness.packageRoot + "/Tests/EndToEndTests/Python/cluster_faults.py"
        let python = try ChildProcess(Harness.pythonPath, [script, "order", cluster.instances[0].url, cluster.instances[1].url], name: "python")
        #expect(python.waitForExit(timeout: 60) == 0, "\(python.transcript)\n\(cluster.transcripts)")
        #expect(python.stdout.last == "order ok", "\(python.transcript)")
    }

    /// A create or accept retried by the same client (its first answer was
    /// lost, e.g. a 503 when Redis dropped) is answered as the first was,
    /// on any instance; another client still gets the 409.
    @Test func aRetriedCreateOrAcceptIsAnsweredAsTheFirstWas() throws {
        let cluster = try ClusterFixture(instances: 2, haproxy: false)
        let (a, b) = (cluster.instances[0].port, cluster.instances[1].port)
        let code = Self.code()
        let first = HTTPExchange.send("POST", port: a, "/api/rooms", ["joinid": code, "expiresInSeconds": 600, "client1": "retry-alice-1"])
        #expect(first.status == 201, "\(first)")
        Thread.sleep(forTimeInterval: 0.01)
        let retry = HTTPExchange.send("POST", port: b, "/api/rooms", ["joinid": code, "expiresInSeconds": 600, "client1": "retry-alice-1"])
        #expect(retry.status == 201 && retry.body["exp"] as? String == first.body["exp"] as? String, "\(retry) \(first)")
        let other = HTTPExchange.send("POST", port: b, "/api/rooms", ["joinid": code, "expiresInSeconds": 600, "client1": "retry-mallory"])
        #expect(other.status == 409, "\(other)")
        let accept = HTTPExchange.send("POST", port: b, "/api/rooms/accept", ["joinid": code, "client2": "retry-bob-22"])
        #expect(accept.status == 200, "\(accept)")
        let again = HTTPExchange.send("POST", port: a, "/api/rooms/accept", ["joinid": code, "client2": "retry-bob-22"])
        #expect(again.status == 200 && again.body["roomid"] as? String == accept.body["roomid"] as? String, "\(again) \(accept)")
        let third = HTTPExchange.send("POST", port: a, "/api/rooms/accept", ["joinid": code, "client2": "retry-carol-3"])
        #expect(third.status == 409 && third.body["error"] as? String == "already_accepted", "\(third)")
    }

    /// `--max-rooms` counts the live rooms of every instance together: with
    /// 2, a room on each instance fills the code space, a third create on
    /// either gets 503 code_space_full, and a purged room frees its place.
    @Test func theRoomLimitCountsTheRoomsOfEveryInstance() throws {
        let cluster = try ClusterFixture(instances: 2, haproxy: false, extra: ["--max-rooms", "2"])
        let (a, b) = (cluster.instances[0].port, cluster.instances[1].port)
        let one = Self.code()
        var two = Self.code()
        while two == one { two = Self.code() }
        let first = HTTPExchange.send("POST", port: a, "/api/rooms", ["joinid": one, "expiresInSeconds": 600, "client1": "space-alice-1"])
        #expect(first.status == 201, "\(first)")
        let second = HTTPExchange.send("POST", port: b, "/api/rooms", ["joinid": two, "expiresInSeconds": 600, "client1": "space-bob-22"])
        #expect(second.status == 201, "\(second)")
        var three = Self.code()
        while three == one || three == two { three = Self.code() }
        for port in [a, b] {
            let full = HTTPExchange.send("POST", port: port, "/api/rooms", ["joinid": three, "expiresInSeconds": 600, "client1": "space-carol-3"])
            #expect(full.status == 503 && full.body["error"] as? String == "code_space_full", "\(full)")
        }
        let purge = HTTPExchange.send("POST", port: b, "/api/user/purge", ["deviceIds": ["space-alice-1"]])
        #expect(purge.status == 200 && purge.body["pendingsDeleted"] as? Int == 1, "\(purge)")
        let freed = HTTPExchange.send("POST", port: b, "/api/rooms", ["joinid": one, "expiresInSeconds": 600, "client1": "space-carol-3"])
        #expect(freed.status == 201, "\(freed)")
    }

    /// Redis stops for 10 s while instance A is stopped too, so A's
    /// heartbeat key expires; Bob (on B) rejoins meanwhile, which frees
    /// Alice's seat. When A is back it takes the seat again: both hear
    /// room_ready, the relays queued during the outage arrive, and relays
    /// flow both ways, with neither WebSocket closed and Alice never rejoining.
    @Test func aMemberWhoseInstanceWasAwayGetsItsSeatBack() throws {
        let cluster = try ClusterFixture(instances: 2, haproxy: false)
        let (a, b) = (cluster.instances[0], cluster.instances[1])
        let script = Harness.packageRoot + "/Tests/EndToEndTests/Python/cluster_faults.py"
        let python = try ChildProcess(Harness.pythonPath, [script, "outage", a.url, b.url], name: "python")
        #expect(python.waitForLine(timeout: 60) { $0 == "seated" } != nil, "\(python.transcript)")
        cluster.redis.kill()
        a.process.signal(SIGSTOP)
        python.write("stopped\n")
        #expect(python.waitForLine(timeout: 30) { $0 == "queued" } != nil, "\(python.transcript)")
        // Longer than the heartbeat TTL (8 s): A's key has expired when Redis is back.
        Thread.sleep(forTimeInterval: 10)
        try cluster.redis.start()
        // B is back (its heartbeat key again), A is not.
        #expect(waitFor { cluster.redis.cli("EXISTS", "chatcli:inst:" + b.instanceID) == ["1"] })
        #expect(cluster.redis.cli("EXISTS", "chatcli:inst:" + a.instanceID) == ["0"])
        python.write("rejoin\n")
        #expect(python.waitForLine(timeout: 30) { $0 == "rejoined" } != nil, "\(python.transcript)\n\(cluster.transcripts)")
        a.process.signal(SIGCONT)
        #expect(a.process.waitForLine(stderr: true, timeout: 30) { $0.contains("event=seats_reclaimed") } != nil, "\(cluster.transcripts)")
        python.write("resume\n")
        #expect(python.waitForExit(timeout: 60) == 0, "\(python.transcript)\n\(cluster.transcripts)")
        #expect(python.stdout.last == "relay ok", "\(python.transcript)")
        // One WebSocket each, the whole time (the script checks they are still open at the end).
        #expect([a, b].allSatisfy { $0.process.stderr.filter { $0.contains("event=ws_open") }.count == 1 }, "\(cluster.transcripts)")
    }

    @Test func killingTheInstanceOfAPeersWebSocketLosesNoRoomAndTheChatGoesOn() throws {
        let cluster = try ClusterFixture(instances: 3)
        let alice = try ChildProcess.chatcli(["create", "--server", cluster.url, "--json", "--no-store"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", cluster.url, "--json", "--no-store"], name: "bob")
        #expect(alice.waitForEvent("connected", timeout: 30) != nil, "\(alice.transcript)\n\(cluster.transcripts)")
        #expect(bob.waitForEvent("connected", timeout: 30) != nil, "\(bob.transcript)")
        alice.write("before\n")
        #expect(bob.waitForMessages(count: 1) == ["before"])
        let victim = try #require(cluster.instances.first { $0.openWebSockets > 0 }, "\(cluster.transcripts)")
        let survivors = cluster.instances.filter { $0 !== victim }
        let holders = victim.openWebSockets
        victim.kill()
        // The clients' signaling reconnects through HAProxy to the others:
        // every WebSocket is open again on a survivor, and seated in the room.
        #expect(waitFor(timeout: 60) { survivors.map(\.openWebSockets).reduce(0, +) >= 2 }, "\(cluster.transcripts)")
        #expect(holders > 0)
        let seated = waitFor(timeout: 60) {
            let seats = cluster.redis.cli("--scan", "--pattern", "chatcli:seats:*")
            guard let key = seats.first else { return false }
            let members = cluster.redis.cli("HVALS", key)
            return members.count == 2 && members.allSatisfy { m in survivors.contains { m.hasPrefix($0.instanceID + "/") } }
        }
        #expect(seated, "\(cluster.redis.cli("--scan", "--pattern", "chatcli:*"))\n\(cluster.transcripts)")
        alice.write("after\n")
        #expect(bob.waitForMessages(count: 2) == ["before", "after"], "\(bob.transcript)")
        alice.closeInput()
        #expect(alice.waitForExit() == 0, "\(alice.transcript)")
        #expect(bob.waitForExit() == 0, "\(bob.transcript)")
    }

    @Test func killingTheInstanceHoldingACreatorsLongPollStillPairs() throws {
        let cluster = try ClusterFixture(instances: 3)
        let alice = try ChildProcess.chatcli(["create", "--server", cluster.url, "--json", "--no-store"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        #expect(alice.waitForEvent("waiting") != nil)
        var victim: ClusterInstance?
        #expect(waitFor { victim = cluster.instances.first { HTTPExchange.send("GET", port: $0.port, "/healthz").header("X-Long-Polls") == "1" }; return victim != nil })
        try #require(victim).kill()
        let bob = try ChildProcess.chatcli(["join", code, "--server", cluster.url, "--json", "--no-store"], name: "bob")
        #expect(alice.waitForEvent("connected", timeout: 60) != nil, "\(alice.transcript)\n\(cluster.transcripts)")
        #expect(bob.waitForEvent("connected", timeout: 30) != nil, "\(bob.transcript)")
        alice.write("made it\n")
        #expect(bob.waitForMessages(count: 1) == ["made it"])
        alice.closeInput()
        #expect(alice.waitForExit() == 0)
        #expect(bob.waitForExit() == 0)
    }

    @Test func sigtermDrainsAnInstanceAndItsClientsMoveOn() throws {
        let cluster = try ClusterFixture(instances: 2)
        let alice = try ChildProcess.chatcli(["create", "--server", cluster.url, "--json", "--no-store"], name: "alice")
        let code = try #require(alice.waitForEvent("code")?["code"] as? String, "\(alice.transcript)")
        let bob = try ChildProcess.chatcli(["join", code, "--server", cluster.url, "--json", "--no-store"], name: "bob")
        #expect(alice.waitForEvent("connected", timeout: 30) != nil, "\(alice.transcript)")
        #expect(bob.waitForEvent("connected", timeout: 30) != nil, "\(bob.transcript)")
        let draining = try #require(cluster.instances.first { $0.openWebSockets > 0 })
        let other = try #require(cluster.instances.first { $0 !== draining })
        draining.process.signal(SIGTERM)
        #expect(draining.process.waitForExit() == 143, "\(draining.process.transcript)")
        // Its seats were freed as it left: the clients are seated again on
        // the other instance without waiting for a heartbeat to expire.
        #expect(waitFor(timeout: 60) {
            let members = cluster.redis.cli("--scan", "--pattern", "chatcli:seats:*").first.map { cluster.redis.cli("HVALS", $0) } ?? []
            return members.count == 2 && members.allSatisfy { $0.hasPrefix(other.instanceID + "/") }
        }, "\(cluster.transcripts)")
        bob.write("still here\n")
        #expect(alice.waitForMessages(count: 1) == ["still here"])
        alice.closeInput()
        #expect(alice.waitForExit() == 0)
        #expect(bob.waitForExit() == 0)
    }

    /// Polls `condition` every 100 ms until it holds or `timeout` passes.
    func waitFor(timeout: TimeInterval = 30, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return condition()
    }
}
