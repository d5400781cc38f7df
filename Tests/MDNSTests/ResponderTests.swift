import Testing
import TestSupport
@testable import MDNS

struct ResponderTests {
    @Test func probesThreeTimesThenAnnouncesTwice() {
        let link = Link()
        let responder = Fixture.responder("alpha")
        link.add(responder: responder, address: [192, 0, 2, 1])
        link.run(until: .seconds(5))
        let messages = link.sent.map(\.transmit.message)
        #expect(messages.count == 5)
        // Probes: questions for the names (QU), proposed records in the authority section.
        for probe in messages.prefix(3) {
            #expect(!probe.isResponse)
            #expect(probe.questions.allSatisfy { $0.type == .any && $0.unicastResponse })
            #expect(probe.authorities.contains { $0.type == .srv })
        }
        for announcement in messages.suffix(2) {
            #expect(announcement.isResponse)
            #expect(announcement.answers.filter(\.cacheFlush).map(\.type).sorted { $0.rawValue < $1.rawValue } == [.a, .txt, .srv])
        }
        #expect(responder.pollEvent() == .established(instance: "alpha"))
    }

    @Test func aQuerierResolvesTheServiceWithItsTXTAndAddress() {
        let link = Link()
        link.add(responder: Fixture.responder("alpha", port: 4242), address: [192, 0, 2, 1])
        let querier = MDNSQuerier(random: SeededRandom(seed: 9))
        link.add(querier: querier, address: [192, 0, 2, 2])
        link.run(until: .seconds(3))
        querier.browse(Fixture.type, now: link.now)
        link.run(until: .seconds(4))
        let found = querier.services(now: link.now)
        #expect(found.count == 1)
        #expect(found.first?.instance == "alpha")
        #expect(found.first?.port == 4242)
        #expect(found.first?.txt == ["v": "1", "name": "alpha"])
        #expect(found.first?.addresses == [[192, 0, 2, 1]])
    }

    @Test func knownAnswersSuppressTheAnswer() {
        let link = Link()
        let responder = Fixture.responder("alpha")
        link.add(responder: responder, address: [192, 0, 2, 1])
        link.run(until: .seconds(3))
        link.sent = []
        let instance = DNSName(instance: "alpha", in: Fixture.type)!
        let question = DNSQuestion(name: Fixture.type, type: .ptr)
        let fresh = DNSMessage(questions: [question], answers: [DNSRecord(name: Fixture.type, data: .ptr(instance), ttl: 4000)])
        responder.handle(fresh.encoded(), from: [192, 0, 2, 2], port: 5353, now: link.now)
        link.run(until: .seconds(4))
        #expect(link.sent.isEmpty)
        // Less than half the TTL left: answered again.
        let stale = DNSMessage(questions: [question], answers: [DNSRecord(name: Fixture.type, data: .ptr(instance), ttl: 100)])
        responder.handle(stale.encoded(), from: [192, 0, 2, 2], port: 5353, now: link.now)
        link.run(until: .seconds(5))
        #expect(link.sent.count == 1)
        let answer = link.sent.first?.transmit.message
        #expect(answer?.answers.map(\.type) == [.ptr])
        #expect(Set(answer?.additionals.map(\.type.rawValue) ?? []) == [DNSRecordType.srv.rawValue, DNSRecordType.txt.rawValue, DNSRecordType.a.rawValue])
    }

    @Test func aConflictWhileProbingRenamesAndProbesAgain() {
        let link = Link()
        // Another host already owns "alpha" (with another port); it answers the newcomer's probe.
        let owner = Fixture.responder("alpha", host: "host-b", address: [192, 0, 2, 2], seed: 2, port: 5000)
        link.add(responder: owner, address: [192, 0, 2, 2])
        link.run(until: .seconds(5))
        let responder = Fixture.responder("alpha", now: link.now)
        link.add(responder: responder, address: [192, 0, 2, 1])
        link.run(until: .seconds(10))
        #expect(responder.pollEvent() == .renamed(instance: "alpha (2)"))
        #expect(responder.pollEvent() == .established(instance: "alpha (2)"))
        #expect(responder.instanceName == "alpha (2)")
    }

    @Test func theLaterRecordsWinASimultaneousProbe() {
        let low = Fixture.responder("same", host: "same", address: [192, 0, 2, 1], seed: 3)
        let high = Fixture.responder("same", host: "same", address: [192, 0, 2, 200], seed: 3)
        let link = Link()
        link.add(responder: low, address: [192, 0, 2, 1])
        link.add(responder: high, address: [192, 0, 2, 200])
        link.run(until: .seconds(10))
        // The higher address wins the tie-break; the lower defers, probes again, meets the winner and renames.
        #expect(high.instanceName == "same")
        #expect(high.pollEvent() == .established(instance: "same"))
        #expect(low.instanceName == "same (2)")
    }

    @Test func goodbyeSendsEveryRecordWithTTLZeroAndQueriersDropItAtOnce() {
        let link = Link()
        let responder = Fixture.responder("alpha")
        link.add(responder: responder, address: [192, 0, 2, 1])
        let querier = MDNSQuerier(random: SeededRandom(seed: 9))
        link.add(querier: querier, address: [192, 0, 2, 2])
        querier.browse(Fixture.type, now: .zero)
        link.run(until: .seconds(4))
        #expect(querier.services(now: link.now).count == 1)
        link.sent = []
        responder.goodbye(now: link.now)
        link.deliver()
        #expect(link.sent.count == 1)
        #expect(link.sent.first?.transmit.message.answers.allSatisfy { $0.ttl == 0 } == true)
        #expect(querier.services(now: link.now).isEmpty)
        #expect(responder.pollTimeout() == nil)
    }

    @Test func legacyUnicastQueriesGetTheirIDAndShortTTLs() {
        let responder = Fixture.responder("alpha")
        while let due = responder.pollTimeout(), due < .seconds(5) { responder.handleTimeout(now: due) }
        while responder.pollTransmit() != nil {}
        let query = DNSMessage(id: 0x1234, questions: [DNSQuestion(name: Fixture.type, type: .ptr)])
        responder.handle(query.encoded(), from: [192, 0, 2, 9], port: 40000, now: .seconds(4))
        let reply = responder.pollTransmit()
        #expect(reply?.destination == .unicast(address: [192, 0, 2, 9], port: 40000))
        #expect(reply?.message.id == 0x1234)
        #expect(reply?.message.questions.count == 1)
        #expect(reply?.message.answers.allSatisfy { $0.ttl <= 10 && !$0.cacheFlush } == true)
    }

    @Test func cacheFlushReplacesOlderDataOneSecondLater() {
        let querier = MDNSQuerier(random: SeededRandom(seed: 9))
        querier.browse(Fixture.type, now: .zero)
        let instance = DNSName(instance: "alpha", in: Fixture.type)!
        func response(port: UInt16) -> [UInt8] {
            DNSMessage(flags: DNSMessage.responseFlags, answers: [
                DNSRecord(name: Fixture.type, data: .ptr(instance), ttl: 4500),
                DNSRecord(name: instance, data: .srv(priority: 0, weight: 0, port: port, target: DNSName("h.local")!), ttl: 120, cacheFlush: true),
            ]).encoded()
        }
        querier.handle(response(port: 1), from: [192, 0, 2, 1], port: 5353, now: .seconds(1))
        querier.handle(response(port: 2), from: [192, 0, 2, 1], port: 5353, now: .seconds(5))
        querier.handleTimeout(now: .seconds(7))
        #expect(querier.services(now: .seconds(7)).map(\.port) == [2])
    }
}
