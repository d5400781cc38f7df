import Foundation
import TestSupport
import Testing

/// Saved sessions through the real binary: each peer has its own
/// `$XDG_DATA_HOME` (its own machine), a real server checks the purges.
@Suite(.ownThread, .serialized) struct SessionTests {
    /// Starts `create` in `home` and returns the process and its code.
    func create(_ home: StoreHome, _ server: ServerProcess, name: String = "alice", extra: [String] = []) throws
        -> (ChildProcess, String)
    {
        let p = try home.chatcli(["create", "--server", server.url, "--json", "--accept-unproven"] + extra, name: name)
        // Sessions are named by the six digits (the secret is not part of the name).
        let code = try #require(p.waitForEvent("code", timeout: 20)?["locator"] as? String, "\(p.transcript)")
        #expect(p.waitForEvent("waiting") != nil, "\(p.transcript)")
        return (p, code)
    }

    /// Interrupts a creator that is still waiting: its session stays pending.
    func interrupt(_ p: ChildProcess) {
        p.signal(SIGINT)
        #expect(p.waitForExit() == 130, "\(p.transcript)")
    }

    @Test func aSessionGoesFromPendingToAcceptedToClosedAndTheFileHidesIt() throws {
        let server = try ServerProcess()
        let aliceHome = StoreHome(), bobHome = StoreHome()
        let (alice, code) = try create(aliceHome, server)
        let pending = try #require(try aliceHome.session(code), "the creator's session is saved under its code")
        #expect(pending["status"] as? String == "pending")
        #expect(pending["role"] as? String == "creator")
        #expect(pending["server"] as? String == server.url)
        #expect(pending["expired"] as? Bool == false)
        #expect(alice.stderr.contains { $0.contains("not saved") } == false)

        let bob = try bobHome.chatcli(["join", code, "--server", server.url, "--json", "--accept-unproven", "--name", "with alice"], name: "bob")
        #expect(bob.waitForEvent("peer_joined", timeout: 20) != nil, "\(bob.transcript)")
        #expect(alice.waitForEvent("peer_joined", timeout: 20) != nil, "\(alice.transcript)")
        let joined = try #require(try bobHome.session("with alice"), "--name names the joiner's session")
        #expect(joined["status"] as? String == "accepted" && joined["role"] as? String == "joiner")
        // The joiner knows when the room expires (the accept answer's "exp"), as the creator does.
        #expect(joined["expires"] as? String != nil && joined["expires"] as? String == pending["expires"] as? String,
                "joiner \(joined["expires"] ?? "none"), creator \(pending["expires"] ?? "none")")
        let roomID = try #require(joined["roomid"] as? String)
        let accepted = try #require(try aliceHome.session(code))
        #expect(accepted["status"] as? String == "accepted" && accepted["roomid"] as? String == roomID)

        // The store never shows the code, the room or a device id in plaintext, and is 0600.
        let room = try #require(REST.room(port: server.port, id: roomID))
        let deviceIDs = [room["client1"], room["client2"]].compactMap { $0 as? String }
        #expect(deviceIDs.count == 2)
        for home in [aliceHome, bobHome] {
            let bytes = try #require(home.storeBytes)
            for secret in [code, roomID, "with alice"] + deviceIDs {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is visible in \(home.storePath)")
            }
            #expect(home.storeMode == 0o600)
        }

        alice.closeInput()
        #expect(alice.waitForExit() == 0, "\(alice.transcript)")
        #expect(bob.waitForEvent("peer_left") != nil, "\(bob.transcript)")
        bob.closeInput()
        #expect(bob.waitForExit() == 0, "\(bob.transcript)")
        #expect(try aliceHome.session(code)?["status"] as? String == "closed")
        #expect(try bobHome.session("with alice")?["status"] as? String == "closed")

        let again = try aliceHome.run(["resume", code])
        #expect(again.status == 1 && again.errorText.contains("is closed"), "\(again.transcript)")
    }

    @Test(arguments: ["--no-store", "no passphrase"])
    func anUnsavedSessionSaysSoOnceOnStderrAndWritesNothing(how: String) throws {
        let server = try ServerProcess()
        let home = StoreHome()
        let noStore = how == "--no-store"
        let p = try home.chatcli(["create", "--server", server.url, "--json", "--accept-unproven"] + (noStore ? ["--no-store"] : []),
                                 name: "alice", passphrase: noStore ? "correct horse" : nil)
        #expect(p.waitForEvent("waiting", timeout: 20) != nil, "\(p.transcript)")
        interrupt(p)
        #expect(p.stderr.filter { $0.contains("this session is not saved") }.count == 1, "\(p.transcript)")
        #expect(!p.stdout.contains { $0.contains("not saved") }, "the notice never goes to the --json stdout")
        #expect(!FileManager.default.fileExists(atPath: home.dataHome + "/chatcli"), "nothing is written")
    }

    @Test func rmPurgesTheDeviceOnTheServerOrQueuesThePurgeUntilTheServerIsBack() throws {
        let server = try ServerProcess()
        let home = StoreHome()
        let (first, code) = try create(home, server)
        interrupt(first)
        #expect(REST.createRoom(port: server.port, code: code) == 409, "the pending room holds its code")
        let removed = try home.run(["sessions", "rm", code])
        #expect(removed.status == 0 && removed.errorText.contains("purged"), "\(removed.transcript)")
        #expect(REST.createRoom(port: server.port, code: code) == 201, "the purge deleted the pending room")
        #expect(try home.sessions().isEmpty)

        let (second, code2) = try create(home, server)
        interrupt(second)
        server.stop()
        let queued = try home.run(["sessions", "rm", code2])
        #expect(queued.status == 0 && queued.errorText.contains("queued"), "\(queued.transcript)")
        try server.start()
        #expect(REST.createRoom(port: server.port, code: code2) == 409, "the room survived the restart")
        let listed = try home.run(["sessions"])
        #expect(listed.status == 0 && listed.errorText.contains("Purged 1 device id queued"), "\(listed.transcript)")
        #expect(listed.stdout == ["No saved sessions."])
        #expect(REST.createRoom(port: server.port, code: code2) == 201, "the queued purge ran on the next open")
        let quiet = try home.run(["sessions"])
        #expect(!quiet.errorText.contains("urge"), "the queue is empty now\n\(quiet.transcript)")
    }

    @Test func eraseRemovesTheStoreAndNamesServersItCouldNotPurge() throws {
        let up = try ServerProcess(), down = try ServerProcess()
        let home = StoreHome()
        let (a, codeA) = try create(home, up, name: "a")
        interrupt(a)
        let (b, _) = try create(home, down, name: "b")
        interrupt(b)
        down.stop()
        let erased = try home.run(["sessions", "erase"])
        #expect(erased.status == 1, "a server could not be purged\n\(erased.transcript)")
        #expect(erased.errorText.contains("could not purge 1 device id at \(down.url)"), "\(erased.transcript)")
        #expect(erased.errorText.contains("Purged 1 device id at \(up.url)"), "\(erased.transcript)")
        #expect(!home.storeExists)
        #expect(REST.createRoom(port: up.port, code: codeA) == 201)
        let listed = try home.run(["sessions"])
        #expect(listed.stdout == ["No saved sessions."])
        let nothing = try home.run(["sessions", "erase"])
        #expect(nothing.status == 0, "\(nothing.transcript)")
    }

    @Test func passwdReadsBothPassphrasesFromDescriptorsAndOnlyTheNewOneOpensTheStore() throws {
        let server = try ServerProcess()
        let home = StoreHome()
        let (p, code) = try create(home, server)
        interrupt(p)
        let changed = try home.run(["sessions", "passwd", "--passphrase-fd", "0", "--new-passphrase-fd", "0"],
                                   input: "correct horse\nbattery staple\n", passphrase: nil)
        #expect(changed.status == 0, "\(changed.transcript)")
        let old = try home.run(["sessions"])
        #expect(old.status == 1 && old.errorText == "chatcli: wrong passphrase for the session store", "\(old.transcript)")
        // A script hands the passphrase over on another descriptor (here 3, from a file).
        let file = home.dataHome + "/pass"
        try "battery staple\n".write(toFile: file, atomically: true, encoding: .utf8)
        let viaFD = try ChildProcess("/bin/sh", ["-c", "exec \"$0\" sessions --json --passphrase-fd 3 3<\"$1\"", Harness.chatcliPath, file],
                                     name: "fd3", environment: home.environment(passphrase: nil))
        #expect(viaFD.waitForExit() == 0, "\(viaFD.transcript)")
        #expect(viaFD.stdout.contains { $0.contains(#""code":"\#(code)"#) }, "\(viaFD.transcript)")
        let wrongOld = try home.run(["sessions", "passwd"], passphrase: "nope")
        #expect(wrongOld.status == 1 && wrongOld.errorText.contains("wrong passphrase"), "\(wrongOld.transcript)")
    }

    @Test func aWrongPassphraseStopsCreateBeforeAnyRoomExists() throws {
        let server = try ServerProcess()
        let home = StoreHome()
        let (p, _) = try create(home, server)
        interrupt(p)
        let before = home.storeBytes
        let wrong = try home.run(["create", "--server", server.url, "--json", "--accept-unproven"], passphrase: "Correct horse")
        #expect(wrong.status == 1, "\(wrong.transcript)")
        #expect(wrong.errorText == "chatcli: wrong passphrase for the session store", "\(wrong.transcript)")
        #expect(wrong.stdout.isEmpty, "no room was created")
        #expect(home.storeBytes == before)
    }

    @Test func everySessionsCommandHasHelpAndClearErrors() throws {
        let home = StoreHome()
        for command in [["sessions"], ["sessions", "rename"], ["sessions", "rm"], ["sessions", "erase"], ["sessions", "passwd"], ["resume"]] {
            let help = try home.run(command + ["--help"])
            #expect(help.status == 0, "\(help.transcript)")
            #expect(help.stdout.first?.hasPrefix("Usage: chatcli \(command.joined(separator: " ")) ") == true, "\(help.transcript)")
        }
        let missing = try home.run(["sessions", "rm"])
        #expect(missing.status == 2 && missing.errorText.contains("usage is 'chatcli sessions rm NAME"), "\(missing.transcript)")
        let badFD = try home.run(["create", "--passphrase-fd", "x"])
        #expect(badFD.status == 2 && badFD.errorText.contains("--passphrase-fd takes a file descriptor number"), "\(badFD.transcript)")
        let unknown = try home.run(["resume", "nosuch"])
        #expect(unknown.status == 1 && unknown.errorText.contains("no session named \"nosuch\""), "\(unknown.transcript)")
        let conflict = try home.run(["create", "--no-store", "--name", "x"])
        #expect(conflict.status == 2, "\(conflict.transcript)")
    }

    @Test func resumingAPendingSessionPairsWithALaterJoin() throws {
        let server = try ServerProcess()
        let aliceHome = StoreHome()
        let (first, code) = try create(aliceHome, server)
        interrupt(first)
        #expect(try aliceHome.session(code)?["status"] as? String == "pending")

        let alice = try aliceHome.chatcli(["resume", code, "--json", "--accept-unproven"], name: "alice again")
        #expect(alice.waitForEvent("code", timeout: 20)?["locator"] as? String == code, "\(alice.transcript)")
        #expect(alice.waitForEvent("waiting") != nil, "\(alice.transcript)")
        let bob = try StoreHome().chatcli(["join", code, "--server", server.url, "--json", "--accept-unproven"], name: "bob")
        #expect(alice.waitForEvent("connected", timeout: 30) != nil, "\(alice.transcript)\n\(bob.transcript)")
        bob.write("hello again\n")
        #expect(alice.waitForEvent("message")?["text"] as? String == "hello again", "\(alice.transcript)")
        bob.closeInput()
        #expect(bob.waitForExit() == 0, "\(bob.transcript)")
        #expect(alice.waitForEvent("peer_left") != nil)
        alice.closeInput()
        #expect(alice.waitForExit() == 0, "\(alice.transcript)")
        #expect(try aliceHome.session(code)?["status"] as? String == "closed")
    }

    /// Whichever side is killed, and whichever held the initiator's seat
    /// (the first into the room, which is a race), the chat comes back.
    @Test(arguments: ["creator", "joiner"])
    func resumingAnAcceptedRoomAfterAKillChatsAgainWithThePeerStillThere(killed: String) throws {
        let server = try ServerProcess()
        let creatorHome = StoreHome(), joinerHome = StoreHome()
        let (creator, code) = try create(creatorHome, server)
        let joiner = try joinerHome.chatcli(["join", code, "--server", server.url, "--json", "--accept-unproven"], name: "joiner")
        try #require(creator.waitForEvent("connected", timeout: 30) != nil, "\(creator.transcript)\n\(joiner.transcript)")
        try #require(joiner.waitForEvent("connected", timeout: 10) != nil, "\(joiner.transcript)")
        let (victim, survivor, home) = killed == "creator" ? (creator, joiner, creatorHome) : (joiner, creator, joinerHome)
        let name = try #require(try home.sessions().first?["name"] as? String)
        victim.signal(SIGKILL)
        _ = victim.waitForExit()
        #expect(try home.session(name)?["status"] as? String == "accepted")

        let back = try home.chatcli(["resume", name, "--json", "--accept-unproven"], name: "\(killed) back")
        try #require(back.waitForEvent("connected", timeout: 30) != nil, "\(back.transcript)\n\(survivor.transcript)")
        back.write("I am back\n")
        survivor.write("welcome back\n")
        #expect(back.waitForEvent("message")?["text"] as? String == "welcome back", "\(back.transcript)")
        #expect(survivor.waitForEvent("message")?["text"] as? String == "I am back", "\(survivor.transcript)")
        back.closeInput()
        #expect(back.waitForExit() == 0, "\(back.transcript)")
        #expect(survivor.waitForEvent("peer_left") != nil, "\(survivor.transcript)")
        survivor.closeInput()
        #expect(survivor.waitForExit() == 0, "\(survivor.transcript)")
        #expect(try home.session(name)?["status"] as? String == "closed")
    }

    @Test func twoChatcliProcessesSavingAtOnceLoseNoSession() throws {
        let server = try ServerProcess()
        let home = StoreHome()
        let a = try home.chatcli(["create", "--server", server.url, "--json", "--accept-unproven"], name: "a")
        let b = try home.chatcli(["create", "--server", server.url, "--json", "--accept-unproven"], name: "b")
        #expect(a.waitForEvent("waiting", timeout: 20) != nil, "\(a.transcript)")
        #expect(b.waitForEvent("waiting", timeout: 20) != nil, "\(b.transcript)")
        interrupt(a)
        interrupt(b)
        #expect(try home.sessions().count == 2)
    }
}
