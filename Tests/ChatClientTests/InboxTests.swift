@testable import ChatClient
import Testing

/// The receiver's half of delivery, alone: what arrives again on a new
/// connection is not shown again, but is acknowledged again, because the
/// first ack may have died with the old connection (and a sender at end of
/// input waits for every ack).
struct InboxTests {
    @Test func aDuplicateOnANewConnectionIsAcknowledgedAgain() {
        var inbox = Inbox()
        inbox.connectionOpened()
        #expect(inbox.receiveHello(epoch: "e", next: 1).isEmpty)
        #expect(inbox.receive("one", now: .zero) == ["one"])
        #expect(inbox.takeAck() == .ack(epoch: "e", seq: 1))
        // That ack is lost with the connection; the sender sends "one" again.
        inbox.connectionOpened()
        #expect(inbox.receive("one", now: .zero).isEmpty, "held until the hello")
        #expect(inbox.receiveHello(epoch: "e", next: 1).isEmpty, "not shown twice")
        #expect(inbox.takeAck() == .ack(epoch: "e", seq: 1))
    }

    @Test func aHelloNumberingWhatIsShownIsAnsweredWithAnAckAtOnce() {
        var inbox = Inbox()
        inbox.connectionOpened()
        _ = inbox.receiveHello(epoch: "e", next: 1)
        _ = inbox.receive("one", now: .zero)
        _ = inbox.receive("two", now: .zero)
        _ = inbox.takeAck()
        inbox.connectionOpened()
        #expect(inbox.receiveHello(epoch: "e", next: 2).isEmpty)
        #expect(inbox.takeAck() == .ack(epoch: "e", seq: 2), "before the resent message even arrives")
        #expect(inbox.receive("two", now: .zero).isEmpty)
        #expect(inbox.takeAck() == .ack(epoch: "e", seq: 2))
        #expect(inbox.receive("three", now: .zero) == ["three"])
        #expect(inbox.takeAck() == .ack(epoch: "e", seq: 3))
    }

    @Test func aFreshHelloOwesNoAck() {
        var inbox = Inbox()
        inbox.connectionOpened()
        #expect(inbox.receiveHello(epoch: "e", next: 1).isEmpty)
        #expect(inbox.takeAck() == nil)
    }
}
