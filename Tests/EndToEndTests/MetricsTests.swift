import Foundation
import TestSupport
import Testing

/// `GET /metrics` on `--metrics-listen`: Prometheus text that promtool
/// accepts, with values that follow a scripted pairing, a relayed chat and
/// a rate-limit refusal; nothing on the public port.
@Suite(.ownThread, .serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool"),
                             "promtool is not installed (apt install prometheus; Tools/test installs it)"))
struct MetricsTests {
    /// Samples by name with labels (`chatcli_rooms{state="active"}`).
    static func scrape(_ port: UInt16) throws -> (text: String, samples: [String: Int]) {
        let response = REST.request("GET", port: port, "/metrics")
        try #require(response.status == 200, "\(response)")
        var samples: [String: Int] = [:]
        for line in response.body.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int(parts[1]) { samples[String(parts[0])] = value }
        }
        return (response.body, samples)
    }

    static func promtool(_ text: String) throws -> (status: Int32?, transcript: String) {
        let check = try ChildProcess("/usr/bin/promtool", ["check", "metrics"], name: "promtool")
        check.write(text)
        check.closeInput()
        let status = check.waitForExit(timeout: 30)
        return (status, check.transcript)
    }

    @Test func metricsFollowAPairingARelayedChatAndARefusal() throws {
        let metricsPort = Harness.freePort()
        let server = try ServerProcess(arguments: EmbeddedRelayTests.labPeers + ["--metrics-listen", "127.0.0.1:\(metricsPort)", "--create-limit", "1"])
        let before = try Self.scrape(metricsPort)
        let lint = try Self.promtool(before.text)
        #expect(lint.status == 0, "\(lint.transcript)\n\(before.text)")
        #expect(before.samples["chatcli_pairings_total"] == 0)
        #expect(before.samples["chatcli_turn_allocations"] == 0)

        let (alice, bob) = try RelayTests.startChat(server, alice: ["--relay-only"], bob: ["--relay-only"])
        let fromAlice = ChatTests.messages("a"), fromBob = ChatTests.messages("b")
        alice.write(ChatTests.lines(fromAlice))
        bob.write(ChatTests.lines(fromBob))
        #expect(alice.waitForEvent("connected", timeout: 20)?["path"] as? String == "relay", "\(alice.transcript)")
        #expect(alice.waitForMessages(count: fromBob.count) == fromBob)
        #expect(bob.waitForMessages(count: fromAlice.count) == fromAlice)
        // The second room from this client is over --create-limit 1.
        #expect(REST.createRoom(port: server.port, code: "424242") == 429)

        let during = try Self.scrape(metricsPort)
        let lintDuring = try Self.promtool(during.text)
        #expect(lintDuring.status == 0, "\(lintDuring.transcript)\n\(during.text)")
        let s = during.samples
        #expect(s["chatcli_pairings_total"] == 1, "\(during.text)")
        #expect(s[#"chatcli_rooms{state="active"}"#] == 1, "\(during.text)")
        #expect(s[#"chatcli_rooms{state="waiting"}"#] == 0, "\(during.text)")
        #expect(s["chatcli_websockets"] == 2, "\(during.text)")
        #expect(s["chatcli_rate_limit_refusals_total"] == 1, "\(during.text)")
        #expect((s["chatcli_turn_allocations"] ?? 0) >= 2, "\(during.text)")
        #expect((s["chatcli_turn_allocations_created_total"] ?? 0) >= 2, "\(during.text)")
        // Every relayed byte leaves one allocation and enters the other: both directions carry the chat.
        #expect((s[#"chatcli_turn_relayed_bytes_total{direction="to_peer"}"#] ?? 0) > 1000, "\(during.text)")
        #expect((s[#"chatcli_turn_relayed_bytes_total{direction="to_client"}"#] ?? 0) > 1000, "\(during.text)")
        #expect((s[#"chatcli_turn_relayed_packets_total{direction="to_client"}"#] ?? 0) > 10, "\(during.text)")
        alice.closeInput()
        #expect(alice.waitForExit() == 0)
        #expect(bob.waitForExit() == 0)

        let publicPort = REST.request("GET", port: server.port, "/metrics")
        #expect(publicPort.status == 404, "metrics are never on the public port")
    }

    /// A `--redis` instance times its heartbeat to a real Redis: a histogram
    /// promtool accepts, whose count grows with the beats (every 2 s) and
    /// whose loopback round trips are far under a second.
    @Test(.enabled(if: RedisProcess.isInstalled, "redis-server is not installed"))
    func aClusterInstanceReportsRedisRoundTripsAsAHistogram() throws {
        let redis = try RedisProcess()
        let metricsPort = Harness.freePort()
        let instance = try ClusterInstance(redis: redis.url, extra: ["--metrics-listen", "127.0.0.1:\(metricsPort)"])
        let name = "chatcli_redis_round_trip_seconds"
        var scraped = try Self.scrape(metricsPort)
        let deadline = Date() + 30
        while (scraped.samples[name + "_count"] ?? 0) < 2, Date() < deadline {
            usleep(100_000)
            scraped = try Self.scrape(metricsPort)
        }
        let lint = try Self.promtool(scraped.text)
        #expect(lint.status == 0, "\(lint.transcript)\n\(scraped.text)")
        let count = try #require(scraped.samples[name + "_count"], "\(scraped.text)\n\(instance.process.transcript)")
        #expect(count >= 2)
        // Cumulative buckets: never falling, +Inf holds every beat.
        let buckets = RoundTripBuckets.parse(scraped.text, name: name)
        #expect(buckets.map(\.le).last == "+Inf", "\(scraped.text)")
        #expect(buckets.last?.count == count, "\(scraped.text)")
        #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.count <= $1.count }, "\(scraped.text)")
        #expect(buckets.first { $0.le == "1.0" }?.count == count, "loopback round trips take far less than 1 s: \(scraped.text)")
        let sum = try #require(scraped.text.split(separator: "\n").first { $0.hasPrefix(name + "_sum ") }
            .flatMap { Double($0.split(separator: " ")[1]) }, "\(scraped.text)")
        #expect(sum > 0 && sum < Double(count), "\(scraped.text)")
    }
}

/// The `_bucket` samples of a histogram, in order.
enum RoundTripBuckets {
    static func parse(_ text: String, name: String) -> [(le: String, count: Int)] {
        text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix(name + "_bucket{le=\""), let close = line.firstIndex(of: "}") else { return nil }
            let le = line[line.index(line.startIndex, offsetBy: name.count + 12)..<line.index(before: close)]
            return Int(line[line.index(after: close)...].trimmingCharacters(in: .whitespaces)).map { (String(le), $0) }
        }
    }
}

@Suite(.ownThread) struct LogFormatTests {
    @Test func logFormatJSONWritesOneObjectPerLine() throws {
        let server = try ServerProcess(arguments: ["--log-format", "json"])
        #expect(REST.request("GET", port: server.port, "/healthz").status == 200)
        let line = try #require(server.process.waitForLine(stderr: true) { $0.contains("/healthz") }, "\(server.process.transcript)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        #expect(object["event"] as? String == "http")
        #expect(object["path"] as? String == "/healthz")
        #expect(object["status"] as? String == "200")
        #expect((object["ts"] as? String)?.hasSuffix("Z") == true)
        let first = try #require(server.process.stderr.first { $0.contains("listening") })
        #expect(first.hasPrefix("{"), "\(first)")
    }
}
