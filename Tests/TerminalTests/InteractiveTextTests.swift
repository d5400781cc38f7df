import ChatClient
import Terminal
import Testing

/// What a typed line means, and how the interactive chat draws things.
@Suite struct InteractiveTextTests {
    @Test(arguments: [
        ("hello", ChatInput.message("hello")),
        (" /quit", .message(" /quit")),
        ("//etc/hosts", .message("/etc/hosts")),
        ("///", .message("//")),
        ("/quit", .command(.quit)),
        ("/QUIT  ", .command(.quit)),
        ("/leave", .command(.leave)),
        ("/help", .command(.help)),
        ("/status", .command(.status)),
        ("/clear", .command(.clear)),
        ("/show", .command(.show)),
        ("/verify", .command(.verify)),
        ("/verify ok", .command(.verifyOK)),
        ("/verify OK", .command(.verifyOK)),
        ("/name  Alice   Liddell ", .command(.name("Alice Liddell"))),
        ("/quitt", .unknown("/quitt")),
        ("/", .unknown("/")),
        ("/x y", .unknown("/x")),
    ])
    func parsesTypedLines(line: String, expected: ChatInput) {
        #expect(ChatInput(line: line) == expected)
    }

    @Test func misusedCommandsExplainThemselvesAndBlankLinesAreNothing() {
        for line in ["/name", "/verify maybe", "/quit now", "/status please"] {
            guard case .usage? = ChatInput(line: line) else {
                Issue.record("\(line) should be a usage hint")
                continue
            }
        }
        #expect(ChatInput(line: "") == nil)
        #expect(ChatInput(line: "  \t ") == nil)
    }

    /// Group commands name a member with `@` (`/to` with its first word), so a
    /// two-person chat's `/verify maybe` stays a usage hint.
    @Test func groupCommandsNameTheMember() {
        #expect(ChatInput(line: "/verify @bob") == .command(.verifyMember("bob", ok: false)))
        #expect(ChatInput(line: "/verify ok @bob") == .command(.verifyMember("bob", ok: true)))
        #expect(ChatInput(line: "/to bob see you at 5") == .command(.to("bob see you at 5")))
        for line in ["/to bob", "/verify @", "/verify ok @"] {
            guard case .usage? = ChatInput(line: line) else {
                Issue.record("\(line) should be a usage hint")
                continue
            }
        }
        #expect(SlashCommand.helpText.contains("/who") && SlashCommand.helpText.contains("/to NAME"))
    }

    @Test func helpListsEveryCommand() {
        for word in ["/help", "/quit", "/leave", "/status", "/verify", "/verify ok", "/name", "/clear", "/show", "//", "Ctrl-C", "Ctrl-D"] {
            #expect(SlashCommand.helpText.contains(word), "\(word)")
        }
    }

    @Test func colorsOnlyOnATerminalWithoutNoColor() {
        #expect(ChatStyle.colorsWanted(isTerminal: true, environment: [:]))
        #expect(ChatStyle.colorsWanted(isTerminal: true, environment: ["NO_COLOR": ""]), "empty means unset (no-color.org)")
        #expect(!ChatStyle.colorsWanted(isTerminal: true, environment: ["NO_COLOR": "1"]))
        #expect(!ChatStyle.colorsWanted(isTerminal: true, environment: ["NO_COLOR": "0"]), "any value")
        #expect(!ChatStyle.colorsWanted(isTerminal: false, environment: [:]))
        #expect(!ChatStyle.colorsWanted(isTerminal: true, environment: ["TERM": "dumb"]))
    }

    @Test func linesCarryTimeAndSenderAndIndentFurtherLines() {
        let plain = ChatStyle(colors: false)
        #expect(plain.line(time: "09:05", .peer(name: "Bob"), "hi\nthere") == "09:05 Bob: hi\n      there")
        #expect(plain.line(time: "09:05", .own, "x") == "09:05 you: x")
        #expect(plain.line(time: "09:05", .error, "bad") == "09:05 -- bad")
        #expect(!plain.prompt(.waitingForPeer, reconnecting: false, verified: false).contains("\u{1B}"))
        let colored = ChatStyle(colors: true)
        #expect(colored.line(time: "09:05", .error, "bad").contains("\u{1B}[31mbad"))
        let prompt = colored.prompt(.connected(path: "relay"), reconnecting: false, verified: true)
        #expect(prompt.hasPrefix("\u{01}\u{1B}[32m\u{02}[connected · relay · verified]"), "escapes hidden from readline's width count")
        #expect(ClockTime.format(hour: 7, minute: 3) == "07:03")
    }

    @Test(arguments: [
        (ChatPhase.starting, false, "connecting to server"),
        (.waitingForPeer, false, "waiting for peer"),
        (.connecting, false, "connecting"),
        (.connecting, true, "reconnecting"),
        (.pathLost, true, "reconnecting"),
        (.connected(path: "host"), true, "connected · direct"),
        (.connected(path: "srflx"), false, "connected · direct"),
        (.connected(path: "relay"), false, "connected · relay"),
        (.peerAway, true, "peer away"),
        (.peerLeft, true, "peer left"),
        (.leaving, true, "leaving"),
    ])
    func promptShowsTheState(phase: ChatPhase, reconnecting: Bool, label: String) {
        #expect(ChatStyle.label(phase, reconnecting: reconnecting, verified: false) == label)
        #expect(ChatStyle(colors: false).prompt(phase, reconnecting: reconnecting, verified: false) == "[\(label)] > ")
    }

    @Test func promptCountsWhatHasNotReachedThePeer() {
        let plain = ChatStyle(colors: false)
        #expect(plain.prompt(.peerAway, reconnecting: true, verified: false, waiting: 2) == "[peer away · 2 waiting] > ")
        #expect(plain.prompt(.peerLeft, reconnecting: true, verified: false, waiting: 1) == "[peer left · 1 waiting] > ")
        #expect(plain.prompt(.connected(path: "host"), reconnecting: false, verified: true, waiting: 3)
                == "[connected · direct · verified · 3 waiting] > ")
        #expect(plain.prompt(.connecting, reconnecting: false, verified: false, waiting: 0) == "[connecting] > ")
        let colored = ChatStyle(colors: true).prompt(.peerAway, reconnecting: true, verified: false, waiting: 2)
        #expect(colored.hasPrefix("\u{01}\u{1B}[31m\u{02}[peer away · 2 waiting]"), "peer away is red")
    }

    @Test func quittingSaysWhatHasNotReachedThePeer() {
        #expect(InteractiveChat.undeliveredNotice(2, peerLeft: false)
                == "2 messages have not reached your peer yet: chatcli leaves once they have (/leave leaves now without them).")
        #expect(InteractiveChat.undeliveredNotice(1, peerLeft: false)
                == "1 message has not reached your peer yet: chatcli leaves once it has (/leave leaves now without it).")
        #expect(InteractiveChat.undeliveredNotice(3, peerLeft: true) == "3 messages never reached your peer: they left.")
    }

    @Test func statusReportSaysEverythingAskedFor() {
        var report = StatusReport(state: "connected · direct", sessionAge: .seconds(3725))
        report.path = ("srflx", "srflx 203.0.113.1:4000", "host 10.0.0.2:5000")
        report.rttMilliseconds = 12
        report.counters.messagesSent = 1
        report.counters.bytesSent = 5
        report.counters.messagesReceived = 2
        report.counters.bytesReceived = 300
        report.waiting = 2
        report.connectedFor = .seconds(65)
        report.expires = "2030-01-01T00:00:00Z"
        report.peerName = "Bob"
        #expect(report.lines == [
            "State: connected · direct with Bob",
            "Path: direct (srflx); local srflx 203.0.113.1:4000, remote host 10.0.0.2:5000",
            "Round trip: 12 ms",
            "Sent: 1 message, 5 bytes (2 waiting for your peer)",
            "Received: 2 messages, 300 bytes",
            "Session: started 1h 02m ago, connected for 1m 05s",
            "Room expires: 2030-01-01T00:00:00Z",
        ])
        let early = StatusReport(state: "waiting for peer", sessionAge: .seconds(4))
        #expect(early.lines.contains("Path: none yet"))
        #expect(early.lines.contains("Session: started 4s ago"))
    }

    @Test func statusReportSaysWhyThePathIsGoneAndCountsFileBytes() {
        var report = StatusReport(state: "peer left", sessionAge: .seconds(30))
        report.pathGone = "your peer left"
        report.fileBytes = (sent: 0, received: 405_500_000)
        #expect(report.lines.contains("Path: none now (your peer left)"))
        #expect(report.lines.contains("Files: sent 0 bytes, received 405.5 MB"))
        #expect(!StatusReport(state: "connected", sessionAge: .zero).lines.contains { $0.hasPrefix("Files:") }, "only where files can move")
    }
}
