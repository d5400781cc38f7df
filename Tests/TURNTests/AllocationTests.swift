import TestSupport
import STUN
import Testing
@testable import TURN

@Test func allocateAnswersTheChallengeAndReportsTheRelayedAddress() throws {
    let link = Link()
    link.pump()
    let allocates = link.server.requests(.allocate)
    #expect(allocates.count == 2)
    let first = try #require(allocates.first)
    #expect(first.attributes.contains(.requestedTransport(17)))
    #expect(!first.contains(.messageIntegrity) && !first.contains(.username))
    let second = try #require(allocates.last)
    #expect(second.username == link.server.username)
    #expect(second.realm == "chatcli.test")
    #expect(second.nonce == "nonce-1")
    #expect(second.contains(.messageIntegrity))
    #expect(first.transactionID != second.transactionID)
    #expect(link.takeEvents() == [.allocated(relayed: link.server.relayed, mapped: link.server.mapped, lifetime: .seconds(600))])
    #expect(link.client.relayedAddress == link.server.relayed)
    #expect(link.client.isAllocated)
}

@Test func staleNonceOnAllocateIsRetriedWithTheNewNonce() {
    let link = Link()
    link.server.staleNonces = 1
    link.pump()
    let allocates = link.server.requests(.allocate)
    #expect(allocates.count == 3)
    #expect(allocates.last?.nonce == link.server.nonce)
    #expect(link.client.isAllocated)
}

@Test func staleNonceOnRefreshIsRetriedWithTheNewNonce() {
    let link = Link()
    link.allocate()
    link.server.staleNonces = 1
    link.advance(to: .seconds(540))
    let refreshes = link.server.requests(.refresh)
    #expect(refreshes.count == 2)
    #expect(refreshes.last?.nonce == link.server.nonce)
    #expect(link.takeEvents() == [.refreshed(lifetime: .seconds(600))])
}

@Test func endlessStaleNoncesEndInAClearFailure() {
    let link = Link()
    link.server.staleNonces = 100
    link.pump()
    #expect(link.server.requests(.allocate).count == 2 + TURNClient.maxStaleNonceRetries)
    #expect(link.takeEvents() == [.failed(.rejected(method: .allocate, code: 438, reason: "Test"))])
    #expect(link.client.isClosed)
    #expect(link.client.pollTimeout() == nil)
}

@Test func refreshIsSentAMinuteBeforeExpiryWithTheRequestedLifetime() {
    let link = Link()
    link.allocate()
    #expect(link.client.pollTimeout() == .seconds(540))
    link.advance(to: .seconds(539))
    #expect(link.server.requests(.refresh).isEmpty)
    link.advance(to: .seconds(540))
    #expect(link.server.requests(.refresh).count == 1)
    #expect(link.server.requests(.refresh).first?.lifetime == 600)
    #expect(link.takeEvents() == [.refreshed(lifetime: .seconds(600))])
    // The next refresh is scheduled from the new grant.
    #expect(link.client.pollTimeout() == .seconds(1080))
    link.advance(to: .seconds(1080))
    #expect(link.server.requests(.refresh).count == 2)
}

@Test func shortLifetimesAreRefreshedHalfway() {
    let link = Link()
    link.server.grantedLifetime = 100
    link.allocate()
    #expect(link.client.pollTimeout() == .seconds(50))
    #expect(Allocation.refreshDelay(lifetime: 121) == .seconds(61))
    #expect(Allocation.refreshDelay(lifetime: 120) == .seconds(60))
    #expect(Allocation.refreshDelay(lifetime: 3600) == .seconds(3540))
}

@Test(arguments: [
    (441, "the TURN server rejected the credentials (441)"),
    (437, "the TURN server reports an allocation mismatch (437): this address already has an allocation"),
    (486, "the TURN server's allocation quota for this user is reached (486)"),
    (508, "the TURN server has no capacity for another allocation (508)"),
    (442, "the TURN server does not relay UDP (442)"),
    (599, "the TURN server refused the Allocate request (599 Test)"),
])
func allocateErrorsBecomeClearFailures(code: Int, reason: String) {
    let link = Link()
    link.server.errors[.allocate] = code
    link.pump()
    let failure = TURNFailure.rejected(method: .allocate, code: code, reason: "Test")
    #expect(link.takeEvents() == [.failed(failure)])
    #expect(failure.description == reason)
    #expect(link.client.isClosed)
    #expect(!link.client.send([1], to: STUNAddress(ipv4: 10, 0, 0, 1, port: 1), now: link.now))
}

@Test func wrongPasswordIsReportedAsRejectedCredentials() {
    let server = FakeTURNServer()
    let client = TURNClient(
        server: STUNAddress(ipv4: 192, 0, 2, 1, port: 3478), transport: .udp,
        username: server.username, password: "wrong", now: .zero, random: SeededRandom(seed: 3))
    var events: [TURNEvent] = []
    while let bytes = client.pollTransmit() {
        for reply in server.receive(bytes, stream: false) { client.handleInput(reply, now: .zero) }
    }
    while let event = client.pollEvent() { events.append(event) }
    #expect(events == [.failed(.rejected(method: .allocate, code: 401, reason: "Test"))])
    #expect(server.requests(.allocate).count == 2)
}

@Test func refreshMismatchMeansTheAllocationIsGone() {
    let link = Link()
    link.allocate()
    link.server.errors[.refresh] = 437
    link.advance(to: .seconds(540))
    #expect(link.takeEvents() == [.failed(.rejected(method: .refresh, code: 437, reason: "Test"))])
}

@Test func allocateOverUDPIsRetransmittedThenTimesOut() {
    let link = Link(.udp)
    link.server.silent = true
    link.advance(to: .seconds(39))
    #expect(link.sent.count == 7)
    #expect(link.takeEvents().isEmpty)
    link.advance(to: .milliseconds(39_500))
    #expect(link.takeEvents() == [.failed(.timedOut(method: .allocate))])
}

@Test func allocateOverTCPIsSentOnceWithA39SecondTimeout() {
    let link = Link(.tcp)
    link.server.silent = true
    link.advance(to: .seconds(39))
    #expect(link.sent.count == 1)
    link.advance(to: .milliseconds(39_500))
    #expect(link.takeEvents() == [.failed(.timedOut(method: .allocate))])
}

@Test func deallocateSendsRefreshWithZeroLifetime() {
    let link = Link()
    link.allocate()
    link.client.deallocate(now: link.now)
    link.pump()
    #expect(link.server.requests(.refresh).last?.lifetime == 0)
    #expect(link.takeEvents() == [.deallocated])
    #expect(link.client.isClosed)
    #expect(link.client.pollTimeout() == nil)
}

@Test func deallocateOfAnAllocationAlreadyGoneStillEnds() {
    let link = Link()
    link.allocate()
    link.server.errors[.refresh] = 437
    link.client.deallocate(now: link.now)
    link.pump()
    #expect(link.takeEvents() == [.deallocated])
}

@Test func tcpCloseFailsTheAllocation() {
    let link = Link(.tcp)
    link.allocate()
    link.client.handleTransportClosed(now: link.now)
    link.pump()
    #expect(link.takeEvents() == [.failed(.transportClosed(detail: nil))])
}

@Test func everyFailureReadsAsOneSentence() {
    let failures: [TURNFailure] = [
        .rejected(method: .allocate, code: nil, reason: ""), .rejected(method: .refresh, code: 437, reason: ""),
        .rejected(method: .channelBind, code: 508, reason: ""), .rejected(method: .createPermission, code: 403, reason: ""),
        .rejected(method: .allocate, code: 499, reason: "Bad\u{1B}[2J thing"),
        .noChallenge, .timedOut(method: .refresh), .mismatchedResponse(method: .allocate, answered: .refresh),
        .noRelayedAddress, .allocationEnded, .garbage, .transportClosed(detail: "reset by peer"),
        .unreachable(server: "192.0.2.1:3478", detail: "refused"), .tlsFailed(serverName: "turn.example", detail: "bad cert"),
        .localAddressGone("10.0.0.2:5000"),
    ]
    for failure in failures {
        let text = failure.description
        #expect(text.hasPrefix("the ") || text.hasPrefix("cannot ") || text.hasPrefix("TLS "), "\(text)")
        #expect(!text.hasSuffix("."), "\(text)")
        #expect(text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, "\(text)")
    }
    #expect(TURNFailure.rejected(method: .allocate, code: 499, reason: "Bad\u{1B}[2J thing").description
        == "the TURN server refused the Allocate request (499 Bad[2J thing)")
}
