import Foundation
import TestSupport
import Testing

/// The NAT matrix (issue 7): two real chatcli binaries, one behind each NAT
/// kind of `Tools/natlab`, with the chat server and a real coturn on the
/// public segment. Every pair must connect, chat both ways with exact
/// in-order delivery, and use the relay exactly when no direct path exists.
/// Needs root and coturn; skipped visibly otherwise.
@Suite(.ownThreadFirst, .serialized, .enabled(if: getuid() == 0, "natlab needs root"),
       .enabled(if: NATLab.coturnInstalled, "needs coturn's turnserver (apt-get install coturn)"))
struct NATMatrixTests {
    static let kinds = ["none", "cone", "symmetric", "blocked"]

    /// All 16 ordered pairs: the creator and the joiner play different roles
    /// in signaling and ICE (controlling vs controlled), so both orders count.
    static let pairs = kinds.flatMap { left in kinds.map { (left, $0) } }

    /// Relay exactly when no direct UDP path exists: a side without UDP, or a
    /// symmetric NAT against a symmetric or port-restricted one (its mapping
    /// for the peer is unknowable and the peer's filter drops the rest).
    static func needsRelay(_ left: String, _ right: String) -> Bool {
        if left == "blocked" || right == "blocked" { return true }
        let pair = Set([left, right])
        return pair.contains("symmetric") && pair.isSubset(of: ["symmetric", "cone"])
    }

    /// The matrix runs as three serialized suites side by side (each lab has
    /// its own namespaces): the creator behind none or cone here, behind
    /// symmetric or blocked in `NATMatrixSecondHalfTests`, the lossy runs in
    /// `NATMatrixLossyTests`; one suite of all of them was the suite's
    /// longest path.
    static let firstHalf = pairs.filter { ["none", "cone"].contains($0.0) }
    static let secondHalf = pairs.filter { !["none", "cone"].contains($0.0) }

    @Test(arguments: firstHalf)
    func chatConnectsOverTheRightPath(left: String, right: String) throws {
        try Self.connectsOverTheRightPath(left: left, right: right)
    }

    static func connectsOverTheRightPath(left: String, right: String) throws {
        let lab = try NATLab(left: left, right: right, turn: true)
        let sizes = [1_200, 16_384, 65_536]
        let (path, seconds) = try chat(in: lab, from: ChatTests.messages("L", sizes: sizes), ChatTests.messages("R", sizes: sizes))
        #expect((path == "relay") == needsRelay(left, right), "\(left) × \(right) connected over \(path)")
        print("natlab matrix: \(left) × \(right): \(path) in \(String(format: "%.2f", seconds)) s")
    }

    /// Runs `create` on left and `join` on right, sends `fromLeft` and
    /// `fromRight`, and checks both sides got exactly the other's lines, in
    /// order, both relayed or both direct. Returns the joiner's path and the time from
    /// starting `join` to its `connected` event. `flags` go to both sides.
    static func chat(in lab: NATLab, from fromLeft: [String], _ fromRight: [String], flags: [String] = [],
                     connectTimeout: TimeInterval = 30, messageTimeout: TimeInterval = 60) throws -> (path: String, seconds: Double) {
        let run = try chatEvents(in: lab, from: fromLeft, fromRight, flags: flags, connectTimeout: connectTimeout, messageTimeout: messageTimeout)
        return (try #require(run.joiner["path"] as? String), run.seconds)
    }

    /// `chat`, returning both sides' `connected` events.
    static func chatEvents(in lab: NATLab, from fromLeft: [String], _ fromRight: [String], flags: [String] = [],
                           connectTimeout: TimeInterval = 30, messageTimeout: TimeInterval = 60)
        throws -> (creator: [String: Any], joiner: [String: Any], seconds: Double) {
        let creator = try lab.chatcli("left", ["create"] + flags, name: "left")
        let code = try #require(creator.waitForEvent("code", timeout: 20)?["code"] as? String, "\(creator.transcript)")
        let started = Date()
        let joiner = try lab.chatcli("right", ["join", code] + flags, name: "right")
        creator.write(ChatTests.lines(fromLeft))
        joiner.write(ChatTests.lines(fromRight))
        // With CHATCLI_DEBUG_SESSION in the lab's environment, the sessions' last traced steps (not the lines themselves).
        let trace = { (p: ChildProcess) in p.stderr.filter { !$0.contains(#""event":"message""#) }.suffix(60).map { String($0.prefix(240)) }.joined(separator: "\n") }
        let both = { "\(creator.transcript.suffix(3000))\n\(joiner.transcript.suffix(3000))\n--- creator's trace\n\(trace(creator))\n--- joiner's trace\n\(trace(joiner))" }
        let connected = try #require(joiner.waitForEvent("connected", "error", timeout: connectTimeout), "\(both())")
        let seconds = Date().timeIntervalSince(started)
        try #require(connected["event"] as? String == "connected", "\(both())")
        let creatorConnected = try #require(creator.waitForEvent("connected", "error"), "\(both())")
        try #require(creatorConnected["event"] as? String == "connected", "\(both())")
        let path = try #require(connected["path"] as? String)
        // Each side names the type of the remote candidate (one side's host is
        // the other's prflx on the same direct pair); both agree on relay.
        #expect((creatorConnected["path"] as? String == "relay") == (path == "relay"), "\(both())")
        // Compared as Bools with a bounded account: the lines are up to 9 KB, and
        // a failure expanding two 200-line arrays printed nothing at all.
        let toJoiner = joiner.waitForMessages(count: fromLeft.count, timeout: messageTimeout)
        let joinerGotAll = toJoiner == fromLeft
        #expect(joinerGotAll, "to the joiner: \(ChatTests.difference(toJoiner, fromLeft))\n\(both())")
        let toCreator = creator.waitForMessages(count: fromRight.count, timeout: messageTimeout)
        let creatorGotAll = toCreator == fromRight
        #expect(creatorGotAll, "to the creator: \(ChatTests.difference(toCreator, fromRight))\n\(both())")
        creator.closeInput()
        #expect(creator.waitForExit(timeout: 30) == 0, "\(both())")
        #expect(joiner.waitForEvent("peer_left", timeout: 20) != nil, "\(both())")
        joiner.closeInput()
        #expect(joiner.waitForExit(timeout: 20) == 0, "\(both())")
        // Exactly once: nothing arrived after the expected lines either.
        #expect(joiner.receivedMessages.count == fromLeft.count)
        #expect(creator.receivedMessages.count == fromRight.count)
        return (creatorConnected, connected, seconds)
    }
}

@Suite(.ownThreadFirst, .serialized, .enabled(if: getuid() == 0, "natlab needs root"),
       .enabled(if: NATLab.coturnInstalled, "needs coturn's turnserver (apt-get install coturn)"))
struct NATMatrixSecondHalfTests {
    @Test(arguments: NATMatrixTests.secondHalf)
    func chatConnectsOverTheRightPath(left: String, right: String) throws {
        try NATMatrixTests.connectsOverTheRightPath(left: left, right: right)
    }
}

@Suite(.ownThreadFirst, .serialized, .enabled(if: getuid() == 0, "natlab needs root"),
       .enabled(if: NATLab.coturnInstalled, "needs coturn's turnserver (apt-get install coturn)"))
struct NATMatrixLossyTests {
    /// 3 % loss and 50 ms one-way delay at every host: 200 lines of mixed
    /// sizes each way still arrive exactly once and in order, direct and
    /// relayed (the relay leg to the public host is lossy UDP; a blocked
    /// side reaches coturn over TCP), also between two NATed sides.
    @Test(arguments: [("cone", "cone"), ("none", "blocked"), ("symmetric", "cone")])
    func lossyDelayedChatDeliversEverythingInOrder(left: String, right: String) throws {
        let lab = try NATLab(left: left, right: right, options: ["--delay-ms", "50", "--loss-pct", "3"], turn: true)
        // A rare failure here (the joiner's last lines unacknowledged when the creator left) has not been
        // reproduced on demand: the trace says what each session did, should it happen again.
        lab.environment["CHATCLI_DEBUG_SESSION"] = "1"
        let pattern = [16, 40, 250, 1_199, 1_201, 3_000, 9_000, 64]   // each at least its "L196.9000:" prefix
        let sizes = (0..<197).map { pattern[$0 % pattern.count] }
        let (path, _) = try NATMatrixTests.chat(in: lab, from: ChatTests.messages("L", sizes: sizes), ChatTests.messages("R", sizes: sizes),
                                      connectTimeout: 60, messageTimeout: 120)
        #expect((path == "relay") == NATMatrixTests.needsRelay(left, right), "\(left) × \(right) connected over \(path)")
    }
}
