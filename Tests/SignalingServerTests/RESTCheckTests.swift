import HTTP1
import Signaling
@testable import SignalingServer
import Testing

@Test func checkIsNoContentWhilePendingAndRoomIDOnceAccepted() throws {
    let f = try Fixture()
    f.create()
    #expect(f.check() == .respond(.noContent))
    let id = f.accept().json?["roomid"]?.stringValue ?? ""
    guard case .respond(let response) = f.check() else { Issue.record("long poll without wait"); return }
    #expect(response.status == 200)
    #expect(response.body == Array(#"{"roomid":"\#(id)"}"#.utf8))
    // It keeps answering while the room lives (Inviso forgets after the first 200).
    f.advance(seconds: 500)
    guard case .respond(let again) = f.check() else { return }
    #expect(again.json?["roomid"]?.stringValue == id)
    f.advance(seconds: 100)
    guard case .respond(let gone) = f.check() else { return }
    #expect(gone.status == 404)
    #expect(gone.errorCode == "not_found_or_expired")
}

@Test func checkByAnotherClientIsNotFound() throws {
    let f = try Fixture()
    f.create()
    guard case .respond(let response) = f.check(client1: Fixture.bob) else { return }
    #expect(response.status == 404)
    #expect(response.errorCode == "not_found_or_expired")
    guard case .respond(let unknown) = f.check("000000") else { return }
    #expect(unknown.status == 404)
}

@Test func checkValidatesItsFields() throws {
    let f = try Fixture()
    #expect(f.send("POST", "/api/rooms/check", #"{"client1":"alice-device"}"#).errorCode == "missing_joinid")
    #expect(f.send("POST", "/api/rooms/check", #"{"joinid":"123456"}"#).errorCode == "missing_client1")
    #expect(f.send("POST", "/api/rooms/check", #"{"joinid":"12","client1":"alice-device"}"#).errorCode == "invalid_joinid")
    #expect(f.send("POST", "/api/rooms/check", #"{"joinid":"123456","client1":"a b"}"#).errorCode == "invalid_client1")
}

@Test func longPollIsAnsweredWhenTheRoomIsAccepted() throws {
    let f = try Fixture()
    f.create()
    guard case .longPoll(let token, let deadline) = f.check(query: "?wait=25") else {
        Issue.record("expected a long poll")
        return
    }
    #expect(deadline == f.now.adding(seconds: 25))
    #expect(f.router.pollCompletedLongPolls().isEmpty)
    f.advance(seconds: 3)
    let id = f.accept().json?["roomid"]?.stringValue ?? ""
    let completed = f.router.pollCompletedLongPolls()
    #expect(completed.count == 1)
    #expect(completed.first?.0 == token)
    #expect(completed.first?.1.json?["roomid"]?.stringValue == id)
    // Answered once: the deadline then finds nothing to do.
    #expect(f.router.longPollDeadlinePassed(token, now: deadline) == nil)
    #expect(f.router.pollCompletedLongPolls().isEmpty)
}

@Test func longPollTimesOutWithNoContent() throws {
    let f = try Fixture()
    f.create()
    guard case .longPoll(let token, let deadline) = f.check(query: "?wait=10") else { return }
    f.now = deadline
    #expect(f.router.longPollDeadlinePassed(token, now: f.now) == .noContent)
    #expect(f.router.longPollDeadlinePassed(token, now: f.now) == nil)
    _ = f.accept()
    #expect(f.router.pollCompletedLongPolls().isEmpty)
}

@Test func longPollWaitIsCappedAtThirtySeconds() throws {
    let f = try Fixture()
    f.create()
    guard case .longPoll(_, let deadline) = f.check(query: "?wait=300") else { return }
    #expect(deadline == f.now.adding(seconds: 30))
}

@Test func longPollOnAnAcceptedOrUnknownRoomAnswersAtOnce() throws {
    let f = try Fixture()
    #expect(f.check(query: "?wait=20") == .respond(RESTError.notFoundOrExpired.response))
    f.create()
    #expect(f.check(query: "?wait=0") == .respond(.noContent))
    #expect(f.check(query: "?wait=abc") == .respond(.noContent))
    _ = f.accept()
    guard case .respond(let response) = f.check(query: "?wait=20") else { return }
    #expect(response.status == 200)
}

@Test func longPollsOnADeletedOrPurgedRoomAreAnsweredNotFound() throws {
    let f = try Fixture()
    f.create("111111")
    f.create("222222")
    guard case .longPoll(let first, _) = f.check("111111", query: "?wait=30"),
        case .longPoll(let second, _) = f.check("111111", query: "?wait=30"),
        case .longPoll(let third, _) = f.check("222222", query: "?wait=30")
    else { return }
    let purge = f.send("POST", "/api/user/purge", #"{"deviceIds":["\#(Fixture.alice)"]}"#)
    #expect(purge.json?["pendingsDeleted"]?.intValue == 2)
    let completed = f.router.pollCompletedLongPolls()
    #expect(Set(completed.map(\.0)) == [first, second, third])
    #expect(completed.allSatisfy { $0.1.status == 404 && $0.1.errorCode == "not_found_or_expired" })
}

@Test func longPollOnARoomThatExpiresIsAnsweredBySweepOrDeadline() throws {
    let f = try Fixture()
    f.create(expires: 60)
    guard case .longPoll(let token, _) = f.check(query: "?wait=30") else { return }
    f.advance(seconds: 30)
    guard case .longPoll(let late, let deadline) = f.check(query: "?wait=30") else { return }
    #expect(f.router.longPollDeadlinePassed(token, now: f.now) == .noContent)
    f.now = deadline
    #expect(f.router.longPollDeadlinePassed(late, now: f.now)?.status == 404)
    guard case .longPoll(let swept, _) = { f.create("333333", expires: 60); return f.check("333333", query: "?wait=30") }() else { return }
    f.advance(seconds: 60)
    try f.registry.sweep(now: f.now)
    #expect(f.router.pollCompletedLongPolls().map(\.0) == [swept])
}

@Test func cancelledLongPollIsNeverAnswered() throws {
    let f = try Fixture()
    f.create()
    guard case .longPoll(let token, _) = f.check(query: "?wait=30") else { return }
    f.router.cancelLongPoll(token)
    _ = f.accept()
    #expect(f.router.pollCompletedLongPolls().isEmpty)
    #expect(f.router.longPollDeadlinePassed(token, now: f.now) == nil)
}
