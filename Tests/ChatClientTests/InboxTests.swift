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
        #expect(inbox.receive("one", now: .zero) == [.line("one")])
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
        #expect(inbox.receive("three", now: .zero) == [.line("three")])
        #expect(inbox.takeAck() == .ack(epoch: "e", seq: 3))
    }

    @Test func aFreshHelloOwesNoAck() {
        var inbox = Inbox()
        inbox.connectionOpened()
        #expect(inbox.receiveHello(epoch: "e", next: 1).isEmpty)
        #expect(inbox.takeAck() == nil)
    }

    /// A gap (the sender kept no copy of some lines for us) is said right
    /// after the last line before it, once, however it arrives: early, late,
    /// or again on a new connection.
    @Test func aGapIsSaidOnceRightAfterTheLastLineBeforeIt() {
        var inbox = Inbox()
        inbox.connectionOpened()
        _ = inbox.receiveHello(epoch: "e", next: 1)
        #expect(inbox.receive("one", now: .zero) == [.line("one")])
        #expect(inbox.receiveGap(epoch: "e", before: 4, lines: 7).isEmpty, "lines 2 and 3 come first")
        #expect(inbox.receive("two", now: .zero) == [.line("two")])
        #expect(inbox.receive("three", now: .zero) == [.line("three"), .gap(lines: 7)])
        #expect(inbox.receive("four", now: .zero) == [.line("four")])
        // Sent again on a new connection: not said again.
        inbox.connectionOpened()
        _ = inbox.receiveHello(epoch: "e", next: 5)
        #expect(inbox.receiveGap(epoch: "e", before: 4, lines: 7).isEmpty)
        // A gap whose lines before are all shown already is said at once.
        #expect(inbox.receive("five", now: .zero) == [.line("five")])
        #expect(inbox.receiveGap(epoch: "e", before: 6, lines: 2) == [.gap(lines: 2)])
        // Another sender's (epoch's) gap waits for its own lines.
        #expect(inbox.receiveGap(epoch: "f", before: 3, lines: 1).isEmpty)
    }
}
