import Foundation
import TestSupport
import Testing

/// chatcli against a real gateway that maps ports: miniupnpd (PCP, NAT-PMP,
/// UPnP IGD) on a router namespace (`Tools/lib/natlab/upnp-gateway`), the
/// chat server on the router, chatcli on the host behind it. The router
/// says its external address is 44.0.0.1 (miniupnpd maps nothing on a
/// reserved address), so this proves the exchange — map, offer, delete —
/// not a path through it. Needs root and miniupnpd; skipped visibly otherwise.
@Suite(.ownThread, .serialized, .enabled(if: getuid() == 0, "network namespaces need root"),
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/miniupnpd"),
                "needs miniupnpd (apt-get install miniupnpd-nftables)"))
struct PortMappingGatewayTests {
    static let script = Harness.packageRoot + "/Tools/lib/natlab/upnp-gateway"
    static let serverURL = "http://192.168.77.1:8080"

    /// One router and host pair per test, removed again even after a failure.
    final class Gateway {
        let prefix = "zn\(getpid() % 100_000)g\(Int.random(in: 0..<1000))"

        init() throws {
            let child = try ChildProcess(PortMappingGatewayTests.script, ["up", "--prefix", prefix, "--chatcli", Harness.chatcliPath], name: "upnp-gateway up")
            guard child.waitForExit(timeout: 60) == 0 else { throw NATLabError(transcript: child.transcript) }
        }

        /// miniupnpd's DNAT rules: one line per mapping.
        func mappings() -> [String] {
            guard let child = try? ChildProcess(PortMappingGatewayTests.script, ["mappings", "--prefix", prefix], name: "mappings"),
                  child.waitForExit(timeout: 20) == 0 else { return ["(mappings failed)"] }
            return child.stdout.filter { !$0.isEmpty }
        }

        func exec(_ namespace: String, _ arguments: [String], name: String, environment: [String: String] = [:]) throws -> ChildProcess {
            try ChildProcess("/usr/bin/env", ["ip", "netns", "exec", "\(prefix)-\(namespace)", Harness.chatcliPath] + arguments,
                             name: name, environment: ["CHATCLI_PORT_MAPPING": "on"].merging(environment) { $1 })
        }

        deinit {
            let child = try? ChildProcess(PortMappingGatewayTests.script, ["down", "--prefix", prefix], name: "upnp-gateway down")
            _ = child?.waitForExit(timeout: 60)
        }
    }

    @Test func doctorReportsWhatTheGatewayOffersAndDeletesItsTestMapping() throws {
        let gateway = try Gateway()
        let doctor = try gateway.exec("host", ["doctor", "--server", Self.serverURL, "--json"], name: "doctor")
        #expect(doctor.waitForExit(timeout: 30) == 0, "\(doctor.transcript)")
        let line = try #require(doctor.stdout.first { $0.hasPrefix("{") }, "\(doctor.transcript)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let mapping = try #require(report["port_mapping"] as? [String: Any], "\(line)")
        #expect(mapping["gateway"] as? String == "192.168.77.1")
        #expect(mapping["pcp"] as? Bool == true)
        #expect(mapping["nat_pmp"] as? Bool == true)
        #expect(mapping["upnp"] as? Bool == true)
        #expect(mapping["method"] as? String == "pcp")
        #expect((mapping["mapped"] as? String)?.hasPrefix("44.0.0.1:") == true, "\(line)")
        // A PCP or NAT-PMP delete is a datagram the gateway applies when it reads it: after the exit, soon.
        #expect(waitFor(timeout: 5) { gateway.mappings().isEmpty }, "doctor deleted its mapping")
    }

    /// Each protocol alone (`CHATCLI_PORT_MAPPING=METHOD`) maps through the
    /// real gateway, and the mapping is deleted again.
    @Test(arguments: ["pcp", "nat-pmp", "upnp"])
    func eachProtocolMapsAndDeletesThroughMiniupnpd(_ method: String) throws {
        let gateway = try Gateway()
        let doctor = try gateway.exec("host", ["doctor", "--server", Self.serverURL, "--json"], name: "doctor",
                                      environment: ["CHATCLI_PORT_MAPPING": method])
        #expect(doctor.waitForExit(timeout: 30) == 0, "\(doctor.transcript)")
        let line = try #require(doctor.stdout.first { $0.hasPrefix("{") }, "\(doctor.transcript)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let mapping = try #require(report["port_mapping"] as? [String: Any], "\(line)")
        #expect(mapping["method"] as? String == method, "\(line)")
        #expect((mapping["mapped"] as? String)?.hasPrefix("44.0.0.1:") == true, "\(line)")
        #expect(waitFor(timeout: 5) { gateway.mappings().isEmpty }, "doctor deleted its \(method) mapping")
    }

    /// The chat's ICE port is mapped, the mapping is trickled to the peer as
    /// a srflx candidate, and Ctrl-C deletes it from the gateway.
    @Test(arguments: ["on", "upnp"])
    func aChatOffersTheMappingAndCtrlCDeletesIt(_ methods: String) throws {
        let gateway = try Gateway()
        let alice = try gateway.exec("host", ["create", "--server", Self.serverURL, "--json", "--no-store"], name: "alice",
                                     environment: ["CHATCLI_DEBUG_SESSION": "1", "CHATCLI_PORT_MAPPING": methods])
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript)")
        let bob = try gateway.exec("gw", ["join", code, "--server", Self.serverURL, "--json", "--no-store"], name: "bob")
        #expect(alice.waitForEvent("connected", timeout: 30) != nil, "\(alice.transcript)")
        #expect(bob.waitForEvent("connected", timeout: 30) != nil, "\(bob.transcript)")
        #expect(waitFor { gateway.mappings().count == 1 }, "the chat's port is mapped: \(gateway.mappings())")
        // The session's trace of what it trickles to the peer through the server.
        #expect(waitFor { alice.stderr.contains { $0.contains("ice_candidate") && $0.contains("44.0.0.1") && $0.contains("srflx") } },
                "the mapping is offered as a srflx candidate\n\(alice.transcript)")
        alice.signal(SIGINT)
        #expect(alice.waitForExit(timeout: 10) == 130)
        // Sent before the exit; the gateway applies it when it reads it.
        #expect(waitFor(timeout: 5) { gateway.mappings().isEmpty }, "Ctrl-C deleted the mapping: \(gateway.mappings())")
        bob.signal(SIGTERM)
        _ = bob.waitForExit(timeout: 10)
    }

    @Test func noPortMappingLeavesTheGatewayAlone() throws {
        let gateway = try Gateway()
        let alice = try gateway.exec("host", ["create", "--server", Self.serverURL, "--json", "--no-store", "--no-port-mapping"], name: "alice",
                                     environment: ["CHATCLI_DEBUG_SESSION": "1"])
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript)")
        let bob = try gateway.exec("gw", ["join", code, "--server", Self.serverURL, "--json", "--no-store"], name: "bob")
        #expect(alice.waitForEvent("connected", timeout: 30) != nil, "\(alice.transcript)")
        #expect(bob.waitForEvent("connected", timeout: 30) != nil, "\(bob.transcript)")
        // A mapping would have been asked for when the connection was set up, before `connected`.
        let log = (try? String(contentsOfFile: "/run/chatcli-natlab/\(gateway.prefix)-upnp/miniupnpd.log", encoding: .utf8)) ?? ""
        #expect(!log.contains("request received"), "\(log)")
        #expect(gateway.mappings().isEmpty)
        #expect(!alice.stderr.contains { $0.contains("44.0.0.1") })
        alice.closeInput()
        bob.closeInput()
        _ = alice.waitForExit(timeout: 10)
        _ = bob.waitForExit(timeout: 10)
    }

    /// Polls `condition` every 100 ms until it holds or `timeout` passes.
    func waitFor(timeout: TimeInterval = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return condition()
    }
}
