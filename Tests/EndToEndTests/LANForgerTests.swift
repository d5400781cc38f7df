import Foundation
import Testing

extension LANTests {
    /// Someone on the LAN copies a waiting chat's advertisement (its salt
    /// and proof, heard with avahi-browse) and publishes it pointing at a
    /// man in the middle of its own (`mitm_server.py`, relaying to the real
    /// creator's endpoint and terminating both WebRTC connections). A joiner
    /// that does not hear the real chat (multicast from it dropped) finds
    /// the forgery and goes through it: the PAKE, relayed faithfully, fails
    /// on both sides (`pake_failed`), and not one line or name crosses.
    @Test(.enabled(if: AvahiDaemon.installed, "avahi-daemon is not installed"))
    func aForgerCopyingAChatsProofGetsPakeFailedAndNothing() throws {
        let lab = try LANLab(hosts: 3)
        let (creator, forger, joiner) = (lab.hosts[0], lab.hosts[1], lab.hosts[2])
        // The joiner hears only the forger: mDNS from the creator's host is dropped there.
        try lab.sh("ip netns exec \(joiner) iptables -A INPUT -p udp --dport 5353 -s 198.18.9.1 -j DROP"
                   + " && ip netns exec \(joiner) ip6tables -A INPUT -p udp --dport 5353 -j DROP")
        let alice = try lab.chatcli(creator, ["create", "--lan", "--json", "--name", "real"], name: "alice")
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript)")
        alice.write("for bob only\n")

        let avahi = try AvahiDaemon(lab: lab, namespace: forger, interface: lab.links[1])
        var heard = ""
        for _ in 0..<10 where !heard.contains("proof=") {
            let browse = try lab.exec(forger, ["avahi-browse", "-rpt", "_chatcli._udp"], name: "avahi-browse", environment: avahi.environment)
            _ = browse.waitForExit(timeout: 20)
            heard = browse.stdout.first { $0.hasPrefix("=") && $0.contains("proof=") } ?? ""
        }
        func field(_ key: String) -> String? {
            heard.range(of: "\"\(key)=[^\"]*\"", options: .regularExpression).map { String(heard[$0].dropFirst(key.count + 2).dropLast()) }
        }
        let salt = try #require(field("salt"), "\(heard)"), proof = try #require(field("proof")), port = try #require(field("port"))

        let script = Harness.packageRoot + "/Tests/EndToEndTests/Python/mitm_server.py"
        let mitm = try lab.exec(forger, [Harness.pythonPath, script, "http://198.18.9.1:\(port)", "--listen", "198.18.9.2"], name: "forger")
        defer { mitm.signal(SIGKILL); _ = mitm.waitForExit() }
        let listening = try #require(mitm.waitForEvent("listening", timeout: 30)?["port"] as? Int, "\(mitm.transcript)")
        let publish = try lab.exec(forger, ["avahi-publish", "-s", "forged", "_chatcli._udp", "\(listening)", "v=1", "name=real",
                                            "port=\(listening)", "salt=\(salt)", "proof=\(proof)"],
                                   name: "avahi-publish", environment: avahi.environment)
        defer { publish.signal(SIGKILL) }

        let bob = try lab.chatcli(joiner, ["join", code, "--lan", "--json"], name: "bob")
        bob.write("for alice only\n")
        for p in [alice, bob] {
            let error = try #require(p.waitForEvent("error", timeout: 60), "\(p.transcript)\n\(mitm.transcript)")
            #expect(error["error"] as? String == "pake_failed", "\(p.transcript)\n\(mitm.transcript)")
            #expect(p.waitForExit(timeout: 20) == 1, "\(p.transcript)")
            #expect(!p.stdout.contains { $0.contains(#""event":"message""#) || $0.contains(#""event":"connected""#) }, "\(p.transcript)")
        }
        // Bob went through the forgery (its relay saw the PAKE), and nothing else crossed it.
        #expect(mitm.stdout.contains { $0.contains(#""label": "ctl""#) && $0.contains("share") }, "\(mitm.transcript)")
        #expect(!mitm.stdout.contains { $0.contains(#""label": "chat""#) || $0.contains(#""event": "channel""#) }, "\(mitm.transcript)")
        #expect(!mitm.transcript.contains("for bob only") && !mitm.transcript.contains("for alice only"))
    }
}
