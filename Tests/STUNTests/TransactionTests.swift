import TestSupport
import Testing
@testable import STUN

struct TransactionTests {
    let id = STUNTransactionID(high: 1, low: 2)
    let server = STUNAddress(ipv4: 192, 0, 2, 10, port: 3478)

    private func ms(_ value: Int) -> Duration { .milliseconds(value) }

    /// Steps a transaction through time by its own deadlines, recording
    /// when it transmitted and when it gave up.
    private func schedule(policy: STUNRetransmissionPolicy) -> (sends: [Duration], timeout: Duration?) {
        var transaction = STUNTransaction(id: id, request: [1, 2, 3], policy: policy, now: .zero)
        var sends: [Duration] = []
        var now = Duration.zero
        for _ in 0..<100 {
            if transaction.pollTransmit() != nil { sends.append(now) }
            guard let deadline = transaction.pollTimeout() else { break }
            now = deadline
            transaction.handleTimeout(now: now)
        }
        return (sends, transaction.state == .timedOut ? now : nil)
    }

    @Test func retransmissionScheduleMatchesRFC8489Example() {
        let result = schedule(policy: .unreliable)
        #expect(result.sends == [0, 500, 1500, 3500, 7500, 15500, 31500].map(ms))
        #expect(result.timeout == ms(39500))
    }

    @Test func initialRTOIsConfigurable() {
        let result = schedule(policy: STUNRetransmissionPolicy(initialRTO: ms(100), maxTransmissions: 3, lastWaitMultiplier: 2))
        #expect(result.sends == [0, 100, 300].map(ms))
        #expect(result.timeout == ms(500))
    }

    @Test func rtoCeilingIsApplied() {
        let result = schedule(policy: STUNRetransmissionPolicy(maxRTO: .seconds(2)))
        #expect(result.sends == [0, 500, 1500, 3500, 5500, 7500, 9500].map(ms))
        #expect(result.timeout == ms(17500))
    }

    @Test func reliableTransportSendsOnceAndWaitsTi() {
        let result = schedule(policy: .reliable)
        #expect(result.sends == [.zero])
        #expect(result.timeout == ms(39500))
    }

    @Test func earlyTimeoutCallsDoNothing() {
        var transaction = STUNTransaction(id: id, request: [9], now: .zero)
        let firstSend = transaction.pollTransmit()
        #expect(firstSend == [9])
        let repeatSend = transaction.pollTransmit()
        #expect(repeatSend == nil)
        transaction.handleTimeout(now: ms(499))
        let earlySend = transaction.pollTransmit()
        #expect(earlySend == nil)
        #expect(transaction.pollTimeout() == ms(500))
    }

    @Test func responseWithMatchingIDCompletes() {
        var transaction = STUNTransaction(id: id, request: [9], now: .zero)
        let other = STUNMessage(type: .bindingSuccess, transactionID: STUNTransactionID(high: 9, low: 9))
        let matchedOther = transaction.handleResponse(other)
        #expect(!matchedOther)
        let request = STUNMessage(type: .bindingRequest, transactionID: id)
        let matchedRequest = transaction.handleResponse(request)
        #expect(!matchedRequest)
        let response = STUNMessage(type: .bindingSuccess, transactionID: id, attributes: [.xorMappedAddress(server)])
        let matchedResponse = transaction.handleResponse(response)
        #expect(matchedResponse)
        #expect(transaction.state == .completed(response))
        #expect(transaction.pollTimeout() == nil)
    }

    @Test func clientMatchesResponsesAndRetransmits() throws {
        var client = STUNClient()
        var rng = SeededRandom(seed: 7)
        let id = client.startBinding(to: server, now: .zero, using: &rng)
        let firstTransmit = client.pollTransmit()
        let first = try #require(firstTransmit)
        #expect(first.destination == server)
        let duplicateTransmit = client.pollTransmit()
        #expect(duplicateTransmit == nil)
        let sent = try STUNMessage.decode(first.bytes)
        #expect(sent.transactionID == id && sent.type == .bindingRequest)
        #expect(STUNMessage.verifyFingerprint(of: first.bytes) == .valid)

        #expect(client.pollTimeout() == ms(500))
        client.handleTimeout(now: ms(500))
        let retransmit = client.pollTransmit()
        #expect(retransmit?.bytes == first.bytes)

        let mapped = STUNAddress(ipv4: 198, 51, 100, 4, port: 40000)
        let stray = STUNMessage(type: .bindingSuccess, transactionID: STUNTransactionID(high: 0, low: 0),
                                attributes: [.xorMappedAddress(mapped)]).encoded()
        let strayConsumed = client.handleInput(stray, from: server, now: ms(600))
        #expect(!strayConsumed)
        let response = STUNMessage(type: .bindingSuccess, transactionID: id, attributes: [.xorMappedAddress(mapped)])
        let responseConsumed = client.handleInput(response.encoded(fingerprint: true), from: server, now: ms(700))
        #expect(responseConsumed)
        guard case .response(let received) = client.pollEvent() else {
            Issue.record("expected a response event")
            return
        }
        #expect(received.message.reflexiveAddress == mapped)
        #expect(received.source == server)
        #expect(client.pollTimeout() == nil)
        #expect(client.pendingTransactions == 0)
    }

    @Test func clientReportsTimeoutAfterLastWait() throws {
        var client = STUNClient()
        var rng = SeededRandom(seed: 8)
        let id = client.startBinding(to: server, now: .zero, using: &rng)
        var sends = 0
        while let deadline = client.pollTimeout() {
            while client.pollTransmit() != nil { sends += 1 }
            client.handleTimeout(now: deadline)
        }
        while client.pollTransmit() != nil { sends += 1 }
        #expect(sends == 7)
        let event = client.pollEvent()
        #expect(event == .timeout(id))
    }

    @Test func clientDropsResponsesWithBadIntegrity() throws {
        var client = STUNClient()
        var rng = SeededRandom(seed: 9)
        let key = STUNKey.shortTerm(password: "pw")
        let id = client.startBinding(to: server, now: .zero, using: &rng, integrity: key)
        let signedTransmit = client.pollTransmit()
        let transmit = try #require(signedTransmit)
        #expect(STUNMessage.verifyIntegrity(of: transmit.bytes, key: key) == .valid)
        let response = STUNMessage(type: .bindingSuccess, transactionID: id, attributes: [.xorMappedAddress(server)])
        let forgedConsumed = client.handleInput(response.encoded(integrity: .shortTerm(password: "bad")), from: server, now: ms(1))
        #expect(forgedConsumed)
        let unsignedConsumed = client.handleInput(response.encoded(), from: server, now: ms(2))
        #expect(unsignedConsumed)
        let eventAfterForgeries = client.pollEvent()
        #expect(eventAfterForgeries == nil)
        let genuineConsumed = client.handleInput(response.encoded(integrity: key, fingerprint: true), from: server, now: ms(3))
        #expect(genuineConsumed)
        let genuineEvent = client.pollEvent()
        #expect(genuineEvent != nil)
    }

    @Test func cancelledTransactionIsForgotten() {
        var client = STUNClient()
        var rng = SeededRandom(seed: 10)
        let id = client.startBinding(to: server, now: .zero, using: &rng)
        client.cancel(id)
        let transmitAfterCancel = client.pollTransmit()
        #expect(transmitAfterCancel == nil)
        #expect(client.pollTimeout() == nil)
    }
}
