import Foundation
import Testing

extension LANTests {
    /// Someone on the LAN copies a waiting chat's advertisement (its salt
    /// and proof, heard with avahi-browse) and publishes it pointing at a
    /// chat of its own: a `chatcli serve` on its host with a room under the
    /// same six digits (which the proof stands for: brute-forced offline, or
    /// overheard) and an aiortc peer waiting in it. A joiner that does not
    /// hear the real chat (multicast from it dropped) finds the forgery and
    /// pairs with it: having typed the whole code it fails the PAKE at once
    /// (`pake_failed`), shows nothing of the forger's and sends it nothing;
    /// a joiner with the digits alone is refused too (`unproven_peer`).
    @Test(.enabled(if: AvahiDaemon.installed, "avahi-daemon is not installed"), arguments: [true, false])
    func aForgerCopyingAChatsProofGetsPakeFailedAndNothing(wholeCode: Bool) throws {
        let lab = try LANLab(hosts: 3)
        let (creator, forger, joiner) = (lab.hosts[0], lab.hosts[1], lab.hosts[2])
        // The joiner hears only the forger: mDNS from the creator's host is dropped there.
        try lab.sh("ip netns exec \(joiner) iptables -A INPUT -p udp --dport 5353 -s 198.18.9.1 -j DROP"
                   + " && ip netns exec \(joiner) ip6tables -A INPUT -p udp --dport 5353 -j DROP")
        let alice = try lab.chatcli(creator, ["create", "--lan", "--json", "--name", "real"], name: "alice")
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript)")

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
        let salt = try #require(field("salt"), "\(heard)"), proof = try #require(field("proof"))

        // The forger's own server (its namespace's ports are its own) and peer, under the same digits.
        let serve = try lab.chatcli(forger, ["serve", "--host", "198.18.9.2", "--port", "8080", "--stun-port", "3478",
                                             "--db", Harness.temporaryDirectory() + "/rooms.db"], name: "forger server")
        defer { serve.signal(SIGKILL); _ = serve.waitForExit() }
        try #require(serve.waitForLine(stderr: true, timeout: 15) { $0.contains("listening") } != nil, "\(serve.transcript)")
        let lines = Harness.temporaryDirectory() + "/forged.json"
        try Data(#"["forged hello"]"#.utf8).write(to: URL(fileURLWithPath: lines))
        let peer = try lab.exec(forger, [Harness.pythonPath, Harness.packageRoot + "/Tests/EndToEndTests/Python/aiortc_peer.py",
                                         "http://198.18.9.2:8080", "create", "--code", String(code.prefix(6)), "--send", lines, "--expect", "1"],
                                name: "forger peer")
        defer { peer.signal(SIGKILL); _ = peer.waitForExit() }
        try #require(peer.waitForEvent("code", timeout: 30) != nil, "\(peer.transcript)")
        let publish = try lab.exec(forger, ["avahi-publish", "-s", "forged", "_chatcli._udp", "8080", "v=1", "name=real",
                                            "port=8080", "salt=\(salt)", "proof=\(proof)"],
                                   name: "avahi-publish", environment: avahi.environment)
        defer { publish.signal(SIGKILL) }

        let bob = try lab.chatcli(joiner, ["join", wholeCode ? code : String(code.prefix(6)), "--lan", "--json"], name: "bob")
        bob.write("for alice only\n")
        let error = try #require(bob.waitForEvent("error", timeout: 60), "\(bob.transcript)\n\(peer.transcript)")
        #expect(error["error"] as? String == (wholeCode ? "pake_failed" : "unproven_peer"), "\(bob.transcript)")
        #expect(bob.waitForExit(timeout: 20) == 1, "\(bob.transcript)")
        #expect(!bob.stdout.contains { $0.contains(#""event":"message""#) || $0.contains(#""event":"connected""#) }, "\(bob.transcript)")
        // Bob reached the forgery (its peer's channel opened), and nothing of his crossed to it.
        #expect(peer.stdout.contains { $0.contains(#""event": "open""#) }, "\(peer.transcript)")
        #expect(!peer.stdout.contains { $0.contains(#""event": "message""#) }, "\(peer.transcript)")
        #expect(!alice.stdout.contains { $0.contains(#""event":"peer_joined""#) }, "the real chat never saw Bob: \(alice.transcript)")
        alice.signal(SIGTERM)
        _ = alice.waitForExit()
    }
}
