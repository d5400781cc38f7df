import Signaling
@testable import SignalingServer
import Testing

/// ``ReplyOrder``: a cluster instance's own replies never overtake the
/// frames of commands sent before them, whichever of Redis's answer and the
/// inbox read comes first.
struct ReplyOrderTests {
    let a = ConnectionID(1)
    let b = ConnectionID(2)

    func id(_ ms: UInt64, _ seq: UInt64 = 0) -> StreamID { StreamID(milliseconds: ms, sequence: seq) }

    @Test func aReplyWithNothingBeforeItGoesOutAtOnce() {
        var order = ReplyOrder()
        #expect(order.local(a, .pong) == [Outbound(a, .pong)])
        #expect(order.heldConnections == 0)
    }

    @Test func aPongWaitsForTheFramesOfTheJoinBeforeIt() {
        var order = ReplyOrder()
        order.commandSent(a, 1)
        #expect(order.local(a, .pong).isEmpty)
        #expect(order.local(a, .error(.invalidMessage)).isEmpty)
        // Redis ran the join; its frames end at inbox entry 10-0, not read yet.
        #expect(order.answered(a, 1, through: id(10)).isEmpty)
        #expect(order.inboxRead(through: id(9, 5)).isEmpty)
        #expect(order.inboxRead(through: id(10)) == [Outbound(a, .pong), Outbound(a, .error(.invalidMessage))])
        #expect(order.heldConnections == 0)
    }

    @Test func theInboxReadBeforeRedisAnswersReleasesOnTheAnswer() {
        var order = ReplyOrder()
        order.commandSent(a, 1)
        #expect(order.local(a, .pong).isEmpty)
        #expect(order.inboxRead(through: id(20)).isEmpty)
        #expect(order.answered(a, 1, through: id(15)) == [Outbound(a, .pong)])
    }

    @Test func aReplyBetweenTwoCommandsWaitsOnlyForTheFirst() {
        var order = ReplyOrder()
        order.commandSent(a, 1)
        #expect(order.local(a, .pong).isEmpty)
        order.commandSent(a, 2)
        #expect(order.local(a, .error(.invalidMessage)).isEmpty)
        #expect(order.answered(a, 1, through: id(5)).isEmpty)
        #expect(order.inboxRead(through: id(5)) == [Outbound(a, .pong)])
        // A failed command (a script error) caused no frames.
        #expect(order.answered(a, 2, through: nil) == [Outbound(a, .error(.invalidMessage))])
    }

    @Test func connectionsDoNotWaitForEachOther() {
        var order = ReplyOrder()
        order.commandSent(a, 1)
        #expect(order.local(a, .pong).isEmpty)
        #expect(order.local(b, .pong) == [Outbound(b, .pong)])
        order.commandSent(b, 1)
        #expect(order.local(b, .pong).isEmpty)
        #expect(order.answered(b, 1, through: .zero) == [Outbound(b, .pong)])
        #expect(order.heldConnections == 1)
        order.remove(a)
        #expect(order.heldConnections == 0)
        #expect(order.answered(a, 1, through: id(3)).isEmpty)
    }

    @Test func streamIDsParseAndOrderAsRedisDoes() {
        #expect(StreamID("1700000000000-3") == id(1_700_000_000_000, 3))
        #expect(id(5, 10) < id(6, 0) && id(5, 1) < id(5, 2))
        for bad in ["", "5", "5-", "-5", "a-1", "1-2-3", "18446744073709551616-0"] { #expect(StreamID(bad) == nil) }
    }
}
