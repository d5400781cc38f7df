import Foundation
import STUN
import Testing
import TestSupport

/// The TURN relay inside `chatcli serve` (no coturn): relay-only peers chat
/// and send a file through it, coturn's own test client passes against it,
/// and abusive clients get errors or are cut while others' chats go on.
/// Loopback peers need `--turn-allow-peer` (the default policy forbids them).
@Suite(.ownThread, .serialized) struct EmbeddedRelayTests {
    static let labPeers = ["--turn-allow-peer", "127.0.0.0/8"]

    @Test func relayOnlyPeersChatThroughServesOwnRelay() throws {
        let server = try ServerProcess(arguments: Self.labPeers)
        let (alice, bob) = try RelayTests.startChat(server, alice: ["--relay-only"], bob: ["--relay-only"])
        let fromAlice = ChatTests.messages("a"), fromBob = ChatTests.messages("b")
        alice.write(ChatTests.lines(fromAlice))
        bob.write(ChatTests.lines(fromBob))
        let connected = try #require(alice.waitForEvent("connected", timeout: 20), "\(alice.transcript)\n\(bob.transcript)\n\(server.process.transcript)")
        #expect(connected["path"] as? String == "relay")
        #expect((connected["local"] as? String)?.hasPrefix("relay 127.0.0.1:") == true, "\(connected)")
        #expect(bob.waitForEvent("connected")?["path"] as? String == "relay", "\(bob.transcript)")
        ChatTests().expectExchangeAndLeave(alice, bob, fromAlice: fromAlice, fromBob: fromBob)
    }

    @Test func aFileCrossesServesRelayVerified() throws {
        let server = try ServerProcess(arguments: Self.labPeers)
        let dir = Harness.temporaryDirectory()
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let path = dir + "/relayed.bin"
        let content = Data(FileTransferTests.pattern(3_000_000, seed: 26))
        try content.write(to: URL(fileURLWithPath: path))
        let sender = try ChildProcess.chatcli(["send", path, "--server", server.url, "--json", "--relay-only"], name: "sender")
        let receiver = try ChildProcess.chatcli(["receive", try FileTransferTests.code(sender), "--out", out, "--yes", "--server", server.url,
                                                 "--json", "--relay-only"], name: "receiver")
        #expect(sender.waitForExit(timeout: 120) == 0, "\(sender.transcript)\n\(server.process.transcript)")
        #expect(receiver.waitForExit(timeout: 30) == 0, "\(receiver.transcript)")
        #expect(FileTransferTests.bytes(out + "/relayed.bin") == content)
        #expect(receiver.stdout.contains { $0.contains(#""path":"relay""#) }, "\(receiver.transcript)")
    }

    /// aiortc (an independent WebRTC stack that takes the same
    /// `/api/ice-servers` answer) relay-only through serve's relay, given
    /// only one transport's URL: UDP (the STUN port) and TCP (the HTTP port)
    /// on a plain server, TLS on the HTTPS port of a server with a
    /// certificate. Its nominated pair's local candidate is relayed, and its
    /// TURN client reached that port over that transport. chatcli relays
    /// too, so the default peer policy holds.
    @Test func aiortcRelayOnlyChatsThroughServesRelayOverUDPTCPAndTLS() throws {
        let dir = try TemporaryDirectory()
        let certs = try TestCertificates.make(in: dir.path)
        let plain = try ServerProcess()
        let tls = try ServerProcess(arguments: ["--tls-cert", certs.certFile, "--tls-key", certs.keyFile])
        for (transport, server, port) in [("udp", plain, plain.stunPort), ("tcp", plain, plain.port), ("tls", tls, tls.port)] {
            var selected: [String: Any]?
            let connected = try ChatTests.chatWithAiortc(
                server, who: "chatcli-creates", flags: ["--relay-only", "--ca-file", certs.caFile], aiortc: ["--relay", transport],
                // Every message size is ChatTests' business; here one of a packet and one of many.
                environment: ["SSL_CERT_FILE": certs.caFile], sizes: [1_200, 65_536]) { python in selected = python.waitForEvent("selected", timeout: 1) }
            #expect(connected?["path"] as? String == "relay", "\(transport): \(connected ?? [:])")
            #expect(selected?["local"] as? String == "relay", "\(transport): \(selected ?? [:])")
            #expect(selected?["turn"] as? String == transport, "\(selected ?? [:])")
            #expect(selected?["server"] as? String == "127.0.0.1:\(port)", "\(selected ?? [:])")
        }
    }

    /// coturn's test client, Send indications (`-s`: it picks channel
    /// numbers from RFC 5766's 0x4000–0x7FFF, and RFC 8656 reserved
    /// 0x5000 up), one RTP allocation each (`-c`), to `turnutils_peer`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/turnutils_uclient"), "coturn's turnutils are not installed"),
          arguments: ["udp", "tcp"])
    func turnutilsUclientPassesAgainstServe(transport: String) throws {
        let server = try ServerProcess(arguments: Self.labPeers)
        let (username, password) = try Self.credentials(server)
        let peerPort = Harness.freePort(udpPair: true)
        let peer = try ChildProcess("/usr/bin/turnutils_peer", ["-p", "\(peerPort)", "-L", "127.0.0.1"], name: "peer")
        // SIGKILL: a child of the test runner inherits its blocked SIGTERM, which turnutils_peer never unblocks.
        defer { peer.signal(SIGKILL); _ = peer.waitForExit() }
        let port = transport == "udp" ? server.stunPort : server.port
        let client = try ChildProcess("/usr/bin/turnutils_uclient", (transport == "tcp" ? ["-t"] : []) + [
            "-c", "-s", "-u", username, "-w", password, "-p", "\(port)", "-e", "127.0.0.1", "-r", "\(peerPort)",
            "-n", "50", "-m", "4", "-l", "200", "127.0.0.1",
        ], name: "uclient")
        #expect(client.waitForExit(timeout: 60) == 0, "\(client.transcript)")
        let text = client.transcript
        #expect(text.contains("tot_send_msgs=200, tot_recv_msgs=200"), "\(text)")
        #expect(text.contains("Total lost packets 0 "), "\(text)")
    }

    /// One member's credentials allocate again and again: the eleventh gets
    /// 486 (Allocation Quota Reached), and a relayed chat still connects.
    @Test func anAllocationFloodIsRefusedWith486AndOthersChatOn() throws {
        let server = try ServerProcess(arguments: Self.labPeers)
        let (username, password) = try Self.credentials(server)
        var codes: [Int] = []
        var probes: [TURNProbe] = []
        for _ in 0..<12 {
            let probe = try TURNProbe(port: server.stunPort)
            codes.append(try probe.allocate(username: username, password: password))
            probes.append(probe)
        }
        #expect(codes == Array(repeating: 0, count: 10) + [486, 486], "\(server.process.transcript)")
        try Self.relayedChatStillWorks(server)
    }

    /// A TCP client allocates, lets a peer flood its relayed address and
    /// never reads: the server stops queueing for it and cuts it, and a
    /// relayed chat on the same server still connects.
    @Test func aTCPClientThatNeverReadsIsCutAndOthersChatOn() throws {
        let server = try ServerProcess(arguments: Self.labPeers)
        let (username, password) = try Self.credentials(server)
        let client = try TURNProbe(port: server.port, stream: true)
        #expect(try client.allocate(username: username, password: password) == 0)
        let relayed = try #require(client.relayed)
        let flooder = try TURNProbe(port: relayed.port)
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(flooder.fd, $0, &length) } }
        #expect(try client.createPermission(STUNAddress(ipv4: 127, 0, 0, 1, port: UInt16(bigEndian: local.sin_port))) == 0)
        let datagram = [UInt8](repeating: 0x42, count: 1200)
        var cut: String?
        let deadline = Date().addingTimeInterval(60)
        while cut == nil && Date() < deadline {
            for _ in 0..<200 { _ = datagram.withUnsafeBytes { send(flooder.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) } }
            cut = server.process.waitForLine(stderr: true, timeout: 0.05) { $0.contains("event=turn_cut") }
        }
        #expect(cut?.contains("not reading") == true, "\(server.process.transcript.suffix(2000))")
        #expect(client.waitForClose(), "the server closes the connection it cut")
        try Self.relayedChatStillWorks(server)
    }

    /// `chatcli doctor` allocates on serve's relay over UDP and TCP and times
    /// a round trip through it, with the default peer policy: its probe goes
    /// from one relayed address to another on the same server, which is allowed.
    @Test func doctorChecksServesOwnRelay() throws {
        let server = try ServerProcess()
        let report = try DoctorTURNTests.doctor(server)
        let turn = try #require(report["turn"] as? [[String: Any]], "\(report)")
        #expect(turn.map { $0["url"] as? String } == ["turn:127.0.0.1:\(server.stunPort)?transport=udp", "turn:127.0.0.1:\(server.port)?transport=tcp"])
        for entry in turn {
            #expect((entry["relayed"] as? String)?.hasPrefix("127.0.0.1:") == true, "\(entry)")
            #expect((entry["rtt_ms"] as? Double).map { $0 >= 0 && $0 < 5000 } == true, "\(entry)")
            #expect(entry["error"] is NSNull, "\(entry)")
        }
    }

    /// With `--tls-cert`, TURN over TCP on the HTTPS port is TURN over TLS
    /// (`turns:`): doctor allocates through it, trusting the test CA.
    @Test func withACertificateTheRelayIsOfferedOverTLS() throws {
        let dir = try TemporaryDirectory()
        let certs = try TestCertificates.make(in: dir.path)
        let server = try ServerProcess(arguments: ["--tls-cert", certs.certFile, "--tls-key", certs.keyFile])
        let doctor = try ChildProcess.chatcli(["doctor", "--server", "https://localhost:\(server.port)", "--ca-file", certs.caFile, "--json"],
                                              name: "doctor")
        let line = try #require(doctor.waitForLine(timeout: 30) { $0.hasPrefix("{") }, "\(doctor.transcript)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let turn = try #require(report["turn"] as? [[String: Any]], "\(report)")
        let tls = try #require(turn.first { ($0["url"] as? String) == "turns:localhost:\(server.port)?transport=tcp" }, "\(turn)")
        #expect((tls["relayed"] as? String)?.hasPrefix("127.0.0.1:") == true, "\(tls)")
        #expect(tls["error"] is NSNull, "\(tls)")
        _ = doctor.waitForExit()
    }

    /// serve crashes and comes back mid-chat: allocations are lost, the
    /// secret is not (kept beside the database), so the peers reallocate with
    /// the credentials they hold and the line typed meanwhile arrives.
    @Test func aRelayedChatSurvivesACrashOfServe() throws {
        let server = try ServerProcess(arguments: Self.labPeers)
        let (alice, bob) = try RelayTests.startChat(server, alice: ["--relay-only"], bob: ["--relay-only"])
        let both = { "\(alice.transcript.suffix(3000))\n\(bob.transcript.suffix(3000))\n\(server.process.transcript.suffix(2000))" }
        try #require(alice.waitForEvent("connected", timeout: 20)?["path"] as? String == "relay", "\(both())")
        alice.write("before\n")
        #expect(bob.waitForMessages(count: 1, timeout: 20) == ["before"], "\(both())")
        try server.restart(crash: true)
        alice.write("after\n")
        #expect(bob.waitForMessages(count: 2, timeout: 60) == ["before", "after"], "\(both())")
        alice.closeInput()
        #expect(alice.waitForExit(timeout: 30) == 0, "\(both())")
    }

    /// `--turn-external-ip` (serve behind a 1:1 NAT): relayed addresses are
    /// advertised on the public address, bound on the local one. Two
    /// relay-only peers reach each other by their public addresses, which
    /// nothing routes here: the relay hands their traffic over inside.
    @Test func behindAOneToOneNATTheRelayAdvertisesThePublicAddress() throws {
        let server = try ServerProcess(arguments: ["--turn-external-ip", "203.0.113.7/127.0.0.1"])
        let (username, password) = try Self.credentials(server)
        let probe = try TURNProbe(port: server.stunPort)
        #expect(try probe.allocate(username: username, password: password) == 0)
        #expect(probe.relayed?.ip == [203, 0, 113, 7], "\(String(describing: probe.relayed))")
        let (alice, bob) = try RelayTests.startChat(server, alice: ["--relay-only"], bob: ["--relay-only"])
        alice.write("through the NAT\n")
        let connected = try #require(alice.waitForEvent("connected", timeout: 20), "\(alice.transcript)\n\(server.process.transcript)")
        #expect((connected["local"] as? String)?.hasPrefix("relay 203.0.113.7:") == true, "\(connected)")
        #expect((connected["remote"] as? String)?.hasPrefix("relay 203.0.113.7:") == true, "\(connected)")
        #expect(bob.waitForMessages(count: 1, timeout: 20) == ["through the NAT"], "\(bob.transcript)")
        alice.closeInput()
        #expect(alice.waitForExit(timeout: 30) == 0, "\(alice.transcript)")
    }

    /// The TURN entry `/api/ice-servers` hands out (anyone's: a fresh id each time).
    static func credentials(_ server: ServerProcess) throws -> (String, String) {
        let response = REST.request("GET", port: server.port, "/api/ice-servers")
        let json = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
        let body = try #require(json?["iceServers"] as? [[String: Any]], "\(response)")
        let turn = try #require(body.first { $0["username"] != nil }, "\(body)")
        let urls = turn["urls"] as? [String] ?? []
        #expect(urls == ["turn:127.0.0.1:\(server.stunPort)?transport=udp", "turn:127.0.0.1:\(server.port)?transport=tcp"])
        return (try #require(turn["username"] as? String), try #require(turn["credential"] as? String))
    }

    /// Two `--relay-only` peers chat through the server's relay, both ways, and leave.
    static func relayedChatStillWorks(_ server: ServerProcess) throws {
        let (alice, bob) = try RelayTests.startChat(server, alice: ["--relay-only"], bob: ["--relay-only"])
        let fromAlice = ChatTests.messages("a"), fromBob = ChatTests.messages("b")
        alice.write(ChatTests.lines(fromAlice))
        bob.write(ChatTests.lines(fromBob))
        #expect(alice.waitForEvent("connected", timeout: 20)?["path"] as? String == "relay", "\(alice.transcript)")
        ChatTests().expectExchangeAndLeave(alice, bob, fromAlice: fromAlice, fromBob: fromBob)
    }
}

/// A relayed file transfer across a crash of `serve`, apart from
/// `EmbeddedRelayTests` so that its wait for the peers to notice the crash
/// (8 s without an answer) runs beside them, not after them.
@Suite(.ownThreadFirst) struct EmbeddedRelayRestartTests {
    /// serve crashes mid-transfer and comes back: the allocations died with
    /// it, so both ends reallocate and the relayed transfer goes on from
    /// where it was; the file arrives whole and verified.
    @Test func aRelayedFileTransferSurvivesACrashOfServe() throws {
        let server = try ServerProcess(arguments: EmbeddedRelayTests.labPeers)
        let dir = Harness.temporaryDirectory()
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let size = 16_000_000   // 1 s at least under the relay's 16 MiB/s per allocation
        let content = Data(FileTransferTests.pattern(size, seed: 27))
        try content.write(to: URL(fileURLWithPath: dir + "/across.bin"))
        let sender = try ChildProcess.chatcli(["send", dir + "/across.bin", "--server", server.url, "--json", "--relay-only"], name: "sender")
        let receiver = try ChildProcess.chatcli(["receive", try FileTransferTests.code(sender), "--out", out, "--yes", "--server", server.url,
                                                 "--json", "--relay-only"], name: "receiver")
        let both = { "\(sender.transcript.suffix(3000))\n\(receiver.transcript.suffix(3000))\n\(server.process.transcript.suffix(2000))" }
        // Crashed once a fifth has crossed, watched on the partial file.
        var reached = 0
        let deadline = Date() + 120
        while Date() < deadline, reached < size / 5, !FileManager.default.fileExists(atPath: out + "/across.bin") {
            reached = (try? FileManager.default.attributesOfItem(atPath: out + "/across.bin.part")[.size] as? Int) ?? 0
            usleep(1_000)
        }
        try #require(reached >= size / 5 && reached < size, "\(both())")
        try server.restart(crash: true)
        #expect(sender.waitForExit(timeout: 180) == 0, "\(both())")
        #expect(receiver.waitForExit(timeout: 30) == 0, "\(both())")
        #expect(FileTransferTests.bytes(out + "/across.bin") == content)
        let connected = receiver.stdout.filter { $0.hasPrefix(#"{"event":"connected""#) }
        #expect(connected.count >= 2 && connected.allSatisfy { $0.contains(#""path":"relay""#) }, "\(both())")
    }
}
