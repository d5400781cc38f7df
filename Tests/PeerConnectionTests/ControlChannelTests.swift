import PeerConnection
import Testing

/// The `ctl` extras channel next to `chat` (WireProtocol §3).
@Suite struct ControlChannelTests {
    @Test func theOffererOpensCtlAfterChatAndItCarriesTextBothWaysApartFromChat() throws {
        let pair = try PeerPair(index: 4000, link: .perfect, seed: 21)
        drive(pair, timeout: 10) {
            (pair.offererEvents.contains(.controlOpen) && pair.answererEvents.contains(.controlOpen)) || pair.failure != nil
        }
        #expect(pair.failure == nil, "\(pair.failure ?? "")")
        #expect(pair.offerer.isControlOpen && pair.answerer.isControlOpen)
        // `chat` first: its `connected` comes before `controlOpen` on both sides.
        for events in [pair.offererEvents, pair.answererEvents] {
            let connected = events.firstIndex(where: \.isConnected), control = events.firstIndex(of: .controlOpen)
            #expect(connected != nil && control != nil && connected! < control!)
        }

        try pair.offerer.sendControl(#"{"type":"name","name":"A"}"#)
        try pair.answerer.sendControl(#"{"type":"verified"}"#)
        try pair.offerer.send(text: "héllo")
        drive(pair, timeout: 5) {
            pair.answererEvents.contains(.controlMessage(#"{"type":"name","name":"A"}"#))
                && pair.offererEvents.contains(.controlMessage(#"{"type":"verified"}"#))
                && pair.answererEvents.contains(.message("héllo"))
        }
        #expect(pair.answererEvents.compactMap(\.text) == ["héllo"], "ctl text never shows up as a chat message")
        #expect(pair.offererEvents.contains(.controlMessage(#"{"type":"verified"}"#)))

        var sent = ChatCounters(), received = ChatCounters()
        sent.messagesSent = 1
        sent.bytesSent = 6
        received.messagesReceived = 1
        received.bytesReceived = 6
        #expect(pair.offerer.counters == sent, "only chat messages are counted")
        #expect(pair.answerer.counters == received)
    }

    @Test func sendingOnCtlBeforeItIsOpenIsAnErrorNotACrash() throws {
        let pair = try PeerPair(index: 4001, link: .perfect, seed: 22)
        #expect(!pair.offerer.isControlOpen)
        #expect(throws: PeerConnectionError.self) { try pair.offerer.sendControl("{}") }
    }
}
