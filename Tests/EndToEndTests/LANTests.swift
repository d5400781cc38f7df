import Foundation
import TestSupport
import Testing

/// `--lan` through the real binary in two network namespaces with no
/// signaling server anywhere: discovery over mDNS, the creator's own
/// endpoint, host candidates, DTLS, SCTP. Needs root.
@Suite(.ownThread, .serialized, .enabled(if: getuid() == 0, "network namespaces need root"))
struct LANTests {

    func createAndJoin(_ lab: LANLab, name: String = "alice") throws -> (alice: ChildProcess, bob: ChildProcess, ms: Double) {
        let alice = try lab.chatcli(lab.left, ["create", "--lan", "--json", "--name", name], name: "alice")
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript)")
        // Discovery starts once the creator announced (its probing takes about 1 s).
        let found = try lab.chatcli(lab.right, ["lan", "--json", "--watch"], name: "watch")
        try #require(found.waitForLine(timeout: 20) { $0.contains(name) } != nil, "\(found.transcript)")
        found.signal(SIGINT)
        let started = Date()
        let bob = try lab.chatcli(lab.right, ["join", code, "--lan", "--json"], name: "bob")
        try #require(bob.waitForEvent("connected", timeout: 30) != nil, "\(alice.transcript)\n\(bob.transcript)")
        let ms = Date().timeIntervalSince(started) * 1000
        try #require(alice.waitForEvent("connected", timeout: 10) != nil, "\(alice.transcript)")
        return (alice, bob, ms)
    }

    @Test func createAndJoinOverTheLANChatBothWaysWithNoServer() throws {
        let lab = try LANLab()
        let (alice, bob, ms) = try createAndJoin(lab)
        // Figure for the README: from starting `join --lan` to connected (process start, discovery, pairing, ICE, DTLS, SCTP).
        print("lan: join --lan to connected in \(Int(ms)) ms")
        alice.write("hello bob\n")
        bob.write("hello alice\n")
        #expect(bob.waitForEvent("message", timeout: 10)?["text"] as? String == "hello bob", "\(bob.transcript)")
        #expect(alice.waitForEvent("message", timeout: 10)?["text"] as? String == "hello alice", "\(alice.transcript)")
        let connected = try #require(bob.waitForEvent("connected", timeout: 1))
        #expect((connected["remote"] as? String)?.contains("198.18.9.1") == true)
        // The whole code was typed: the LAN path is proven by the PAKE as through a server.
        #expect(connected["auth"] as? String == "pake", "\(connected)")
        alice.closeInput()
        bob.closeInput()
        #expect(alice.waitForExit(timeout: 20) == 0, "\(alice.transcript)")
        #expect(bob.waitForExit(timeout: 20) == 0, "\(bob.transcript)")
    }

    /// Three hosts on a bridge, two chats waiting at once: each joiner
    /// reaches its own creator (no cross-talk), and each chat's lines go to
    /// its own peer only.
    @Test func threeHostsTwoChatsAtOnceNoCrossTalk() throws {
        let lab = try LANLab(hosts: 3)
        let alice = try lab.chatcli(lab.hosts[0], ["create", "--lan", "--json", "--name", "first"], name: "alice")
        let carol = try lab.chatcli(lab.hosts[1], ["create", "--lan", "--json", "--name", "second"], name: "carol")
        let aliceCode = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript)")
        let carolCode = try #require(carol.waitForEvent("code", timeout: 20)?["code"] as? String, "\(carol.transcript)")
        let watch = try lab.chatcli(lab.hosts[2], ["lan", "--json", "--watch"], name: "watch")
        for name in ["first", "second"] {
            try #require(watch.waitForLine(timeout: 20) { $0.contains("\"\(name)\"") } != nil, "\(watch.transcript)")
        }
        watch.signal(SIGINT)
        // Both joins at once, from the third host and from alice's.
        let bob = try lab.chatcli(lab.hosts[2], ["join", aliceCode, "--lan", "--json"], name: "bob")
        let dave = try lab.chatcli(lab.hosts[0], ["join", carolCode, "--lan", "--json"], name: "dave")
        let bobConnected = try #require(bob.waitForEvent("connected", timeout: 30), "\(alice.transcript)\n\(bob.transcript)")
        let daveConnected = try #require(dave.waitForEvent("connected", timeout: 30), "\(carol.transcript)\n\(dave.transcript)")
        #expect((bobConnected["remote"] as? String)?.contains("198.18.9.1") == true, "\(bobConnected)")
        #expect((daveConnected["remote"] as? String)?.contains("198.18.9.2") == true, "\(daveConnected)")
        #expect(bobConnected["auth"] as? String == "pake" && daveConnected["auth"] as? String == "pake")
        try #require(alice.waitForEvent("connected", timeout: 10) != nil && carol.waitForEvent("connected", timeout: 10) != nil)
        alice.write("for bob\n")
        carol.write("for dave\n")
        #expect(bob.waitForEvent("message", timeout: 10)?["text"] as? String == "for bob", "\(bob.transcript)")
        #expect(dave.waitForEvent("message", timeout: 10)?["text"] as? String == "for dave", "\(dave.transcript)")
        for child in [alice, carol, bob, dave] { child.closeInput() }
        for child in [alice, carol, bob, dave] { #expect(child.waitForExit(timeout: 20) == 0, "\(child.transcript)") }
        #expect(!bob.stdout.contains { $0.contains("for dave") } && !dave.stdout.contains { $0.contains("for bob") })
    }

    /// A container-like interface (a veth named docker0, up with a carrier)
    /// is left out by default: a joiner that listens only there hears
    /// nothing. Named in CHATCLI_MDNS_INTERFACES, it carries the chat.
    @Test func aDockerLikeInterfaceIsLeftOutUnlessNamed() throws {
        let lab = try LANLab()
        try lab.addVirtualLink("docker0", "docker1", subnet: "172.17.0")
        let alice = try lab.chatcli(lab.left, ["create", "--lan", "--json", "--name", "default"], name: "alice")
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript)")
        let onDocker = ["CHATCLI_MDNS_INTERFACES": "docker1"]
        let bob = try lab.chatcli(lab.right, ["join", code, "--lan"], name: "bob", environment: onDocker)
        #expect(bob.waitForExit(timeout: 30) == 1)
        #expect(bob.transcript.contains("No chat answered on the local network within 5 s (on docker1)"), "\(bob.transcript)")
        alice.signal(SIGTERM)
        _ = alice.waitForExit(timeout: 10)

        let carol = try lab.chatcli(lab.left, ["create", "--lan", "--json", "--name", "named"], name: "carol",
                                    environment: ["CHATCLI_MDNS_INTERFACES": "docker0"])
        let named = try #require(carol.waitForEvent("code", timeout: 20)?["code"] as? String, "\(carol.transcript)")
        let dave = try lab.chatcli(lab.right, ["join", named, "--lan", "--json"], name: "dave", environment: onDocker)
        #expect(dave.waitForEvent("connected", timeout: 30) != nil, "\(carol.transcript)\n\(dave.transcript)")
        // Nothing of carol's was heard on the lab's own link.
        let list = try lab.chatcli(lab.right, ["lan", "--json", "--wait", "2"], name: "list",
                                   environment: ["CHATCLI_MDNS_INTERFACES": lab.rightLink])
        #expect(list.waitForExit(timeout: 15) == 0)
        #expect(list.stdout.isEmpty, "\(list.transcript)")
    }

    @Test func lanListsByNameAndDropsTheChatWhenItsCreatorQuits() throws {
        let lab = try LANLab()
        let alice = try lab.chatcli(lab.left, ["create", "--lan", "--json", "--name", "alice's laptop"], name: "alice")
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["locator"] as? String, "\(alice.transcript)")
        let watch = try lab.chatcli(lab.right, ["lan", "--json", "--watch"], name: "watch")
        let line = try #require(watch.waitForLine(timeout: 20) { $0.contains("lan_chat") }, "\(watch.transcript)")
        #expect(line.contains("alice's laptop"))
        #expect(!line.contains(code))
        alice.signal(SIGTERM)
        #expect(alice.waitForExit(timeout: 10) == 143)
        // The goodbye (TTL 0) removes it now, not when its 120 s TTL runs out.
        #expect(watch.waitForLine(timeout: 10) { $0.contains("lan_chat_gone") } != nil, "\(watch.transcript)")
        watch.signal(SIGINT)
        let list = try lab.chatcli(lab.right, ["lan", "--json", "--wait", "1"], name: "list")
        #expect(list.waitForExit(timeout: 15) == 0)
        #expect(list.stdout.isEmpty, "\(list.transcript)")
    }

    @Test func joinWithTheWrongCodeOrBlockedMulticastSaysSoAndExits1() throws {
        let lab = try LANLab()
        let alice = try lab.chatcli(lab.left, ["create", "--lan", "--json"], name: "alice")
        let code = try #require(alice.waitForEvent("code", timeout: 30)?["locator"] as? String, "\(alice.transcript)")
        let wrong = String(format: "%06d", (Int(code)! + 1) % 1_000_000)
        let bob = try lab.chatcli(lab.right, ["join", wrong, "--lan"], name: "bob")
        #expect(bob.waitForExit(timeout: 30) == 1)
        #expect(bob.transcript.contains("None of the 1 chat waiting nearby has code \(wrong)"), "\(bob.transcript)")
        // Multicast dropped between the hosts (as Wi-Fi client isolation does).
        try lab.sh("ip netns exec \(lab.right) iptables -A INPUT -p udp --dport 5353 -j DROP"
                   + " && ip netns exec \(lab.right) ip6tables -A INPUT -p udp --dport 5353 -j DROP")
        let carol = try lab.chatcli(lab.right, ["join", code, "--lan"], name: "carol")
        #expect(carol.waitForExit(timeout: 30) == 1)
        #expect(carol.transcript.contains("No chat answered on the local network within 5 s"), "\(carol.transcript)")
        #expect(carol.transcript.contains("multicast"))
    }

    /// With no IPv4 at all, discovery, the creator's endpoint (fe80::…%link)
    /// and ICE (link-local host candidates, sent in the socket's zone) all run
    /// over link-local IPv6, and the chat works.
    @Test func withoutIPv4TheChatRunsOverLinkLocalIPv6() throws {
        let lab = try LANLab(ipv4: false)
        let alice = try lab.chatcli(lab.left, ["create", "--lan", "--json", "--name", "v6"], name: "alice")
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript)")
        let watch = try lab.chatcli(lab.right, ["lan", "--json", "--watch"], name: "watch")
        try #require(watch.waitForLine(timeout: 20) { $0.contains("v6") } != nil, "\(watch.transcript)")
        watch.signal(SIGINT)
        let bob = try lab.chatcli(lab.right, ["join", code, "--lan", "--json"], name: "bob")
        let connected = try #require(bob.waitForEvent("connected", timeout: 30), "\(alice.transcript)\n\(bob.transcript)")
        #expect((connected["remote"] as? String)?.lowercased().contains("fe80:") == true, "\(connected)")
        try #require(alice.waitForEvent("connected", timeout: 10) != nil, "\(alice.transcript)")
        bob.write("over fe80\n")
        #expect(alice.waitForEvent("message", timeout: 10)?["text"] as? String == "over fe80", "\(alice.transcript)")
        alice.write("back over fe80\n")
        #expect(bob.waitForEvent("message", timeout: 10)?["text"] as? String == "back over fe80", "\(bob.transcript)")
    }

    /// The creator's endpoint listens for the whole LAN but answers another
    /// host only the joiner's calls: creating a room (or anything else) from
    /// there is refused with 403, and the joiner still gets in.
    @Test func theCreatorsEndpointAnswersOtherHostsOnlyTheJoinersCalls() throws {
        let lab = try LANLab()
        let alice = try lab.chatcli(lab.left, ["create", "--lan", "--json"], name: "alice")
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript)")
        let listening = try lab.output("ip netns exec \(lab.left) ss -Htln")
        // "LISTEN 0 128 *:41701 *:*": the creator's endpoint is all that listens there.
        let local = listening.split(whereSeparator: \.isWhitespace).dropFirst(3).first.map(String.init) ?? ""
        let port = try #require(local.split(separator: ":").last.flatMap { UInt16($0) }, "\(listening)")
        let script = """
            import sys, urllib.request as u
            opener = u.build_opener(u.ProxyHandler({}))
            for method, path in [("POST", "/api/rooms"), ("GET", "/api/rooms?joinid=1"), ("GET", "/healthz"), ("GET", "/"), ("GET", "/api/ice-servers")]:
                request = u.Request("http://198.18.9.1:" + sys.argv[1] + path, method=method, data=b"{}" if method == "POST" else None,
                                    headers={"Content-Type": "application/json"})
                try:
                    print(method, path, opener.open(request, timeout=10).status)
                except u.HTTPError as error:
                    print(method, path, error.code, error.read().decode())
            """
        let probe = try lab.exec(lab.right, ["python3", "-c", script, String(port)], name: "probe")
        #expect(probe.waitForExit(timeout: 30) == 0, "\(probe.transcript)")
        let answers = probe.stdout
        #expect(answers.filter { $0.contains("403") && $0.contains("loopback_only") }.count == 4, "\(probe.transcript)")
        #expect(answers.contains("GET /api/ice-servers 200"), "\(probe.transcript)")
        let bob = try lab.chatcli(lab.right, ["join", code, "--lan", "--json"], name: "bob")
        #expect(bob.waitForEvent("connected", timeout: 30) != nil, "\(alice.transcript)\n\(bob.transcript)")
    }

    /// `--lan --no-store` asks for what `--lan` does anyway: it is accepted (issue 29).
    @Test func lanWithNoStoreIsAccepted() throws {
        let lab = try LANLab()
        let alice = try lab.chatcli(lab.left, ["create", "--lan", "--no-store", "--json"], name: "alice")
        #expect(alice.waitForEvent("code", timeout: 20) != nil, "\(alice.transcript)")
        #expect(!alice.transcript.contains("does not go with --lan"), "\(alice.transcript)")
        alice.signal(SIGINT)
        #expect(alice.waitForExit() == 130, "\(alice.transcript)")
    }

    @Test func anUnreachableServerMentionsLAN() throws {
        let child = try ChildProcess.chatcli(["join", "123456", "--server", "http://127.0.0.1:9", "--no-store"], name: "bob")
        #expect(child.waitForExit(timeout: 20) == 1)
        #expect(child.transcript.contains("--lan needs no server"), "\(child.transcript)")
    }

    /// Avahi (run in the right namespace with its own D-Bus) sees chatcli's
    /// service with its TXT, and chatcli lists a service Avahi publishes.
    @Test(.enabled(if: AvahiDaemon.installed, "avahi-daemon is not installed"))
    func avahiSeesChatcliAndChatcliSeesAvahi() throws {
        let lab = try LANLab()
        let avahi = try AvahiDaemon(lab: lab, namespace: lab.right, interface: lab.rightLink)
        let alice = try lab.chatcli(lab.left, ["create", "--lan", "--json", "--name", "seen by avahi"], name: "alice")
        _ = try #require(alice.waitForEvent("code", timeout: 20))
        var seen = ""
        for _ in 0..<10 where !seen.contains("seen by avahi") {
            let browse = try lab.exec(lab.right, ["avahi-browse", "-rpt", "_chatcli._udp"], name: "avahi-browse", environment: avahi.environment)
            _ = browse.waitForExit(timeout: 20)
            seen = browse.stdout.joined(separator: "\n")
        }
        #expect(seen.contains("\"name=seen by avahi\"") && seen.contains("\"v=1\"") && seen.contains("198.18.9.1"), "\(seen)")

        let publish = try lab.exec(lab.right, ["avahi-publish", "-s", "from avahi", "_chatcli._udp", "4242", "v=1", "name=published by avahi",
                                               "salt=00112233445566778899aabbccddeeff", "proof=00112233445566778899aabbccddeeff"],
                                   name: "avahi-publish", environment: avahi.environment)
        defer { publish.signal(SIGKILL) }
        let watch = try lab.chatcli(lab.left, ["lan", "--json", "--watch"], name: "watch")
        #expect(watch.waitForLine(timeout: 20) { $0.contains("published by avahi") } != nil, "\(watch.transcript)\n\(publish.transcript)")
        watch.signal(SIGINT)
        alice.signal(SIGTERM)
        _ = alice.waitForExit(timeout: 10)
    }

    /// chatcli and avahi-daemon on the same host share UDP 5353
    /// (SO_REUSEADDR/SO_REUSEPORT, as mDNSResponder does): a chat created
    /// next to a running Avahi is joined from the other host, Avahi on the
    /// creator's host lists it, and another chatcli there hears it too.
    @Test(.enabled(if: AvahiDaemon.installed, "avahi-daemon is not installed"))
    func coexistsWithAvahiOnTheSameHost() throws {
        let lab = try LANLab()
        let avahi = try AvahiDaemon(lab: lab, namespace: lab.right, interface: lab.rightLink)
        let alice = try lab.chatcli(lab.right, ["create", "--lan", "--json", "--name", "next to avahi"], name: "alice")
        let code = try #require(alice.waitForEvent("code", timeout: 20)?["code"] as? String, "\(alice.transcript)")
        var seen = ""
        for _ in 0..<10 where !seen.contains("next to avahi") {
            let browse = try lab.exec(lab.right, ["avahi-browse", "-rpt", "_chatcli._udp"], name: "avahi-browse", environment: avahi.environment)
            _ = browse.waitForExit(timeout: 20)
            seen = browse.stdout.joined(separator: "\n")
        }
        #expect(seen.contains("\"name=next to avahi\""), "\(seen)")
        let neighbour = try lab.chatcli(lab.right, ["lan", "--json", "--watch"], name: "neighbour")
        #expect(neighbour.waitForLine(timeout: 20) { $0.contains("next to avahi") } != nil, "\(neighbour.transcript)")
        neighbour.signal(SIGINT)
        let bob = try lab.chatcli(lab.left, ["join", code, "--lan", "--json"], name: "bob")
        try #require(bob.waitForEvent("connected", timeout: 30) != nil, "\(alice.transcript)\n\(bob.transcript)")
        alice.write("beside avahi\n")
        #expect(bob.waitForEvent("message", timeout: 10)?["text"] as? String == "beside avahi", "\(bob.transcript)")
        alice.closeInput()
        bob.closeInput()
        #expect(alice.waitForExit(timeout: 20) == 0, "\(alice.transcript)")
        #expect(bob.waitForExit(timeout: 20) == 0, "\(bob.transcript)")
    }
}
