import Testing
import TestSupport
@testable import MDNS

/// Hostile datagrams never crash the decoder, the responder or the querier.
@Suite(.computeThread) struct FuzzTests {
    func exercise(_ bytes: [UInt8], _ responder: MDNSResponder, _ querier: MDNSQuerier) {
        if let message = try? DNSMessage(decoding: bytes) { _ = try? DNSMessage(decoding: message.encoded()) }
        responder.handle(bytes, from: [192, 0, 2, 9], port: 5353, now: .seconds(10))
        querier.handle(bytes, from: [192, 0, 2, 9], port: 5353, now: .seconds(10))
        _ = querier.services(now: .seconds(10))
        while responder.pollTransmit() != nil {}
    }

    func cores() -> (MDNSResponder, MDNSQuerier) {
        let service = ServiceInstance(instance: "fuzz", serviceType: DNSName("_chatcli._udp.local")!, port: 1, txt: ["v": "1"])
        let responder = MDNSResponder(service: service, hostLabel: "h", addresses: [[192, 0, 2, 1]], now: .zero,
                                      random: SeededRandom(seed: 1))
        responder.handleTimeout(now: .seconds(5))
        responder.handleTimeout(now: .seconds(6))
        let querier = MDNSQuerier(random: SeededRandom(seed: 2))
        querier.browse(DNSName("_chatcli._udp.local")!, now: .zero)
        return (responder, querier)
    }

    @Test func randomBytesNeverCrash() {
        var rng = SeededRandom(seed: 0x6762)
        let (responder, querier) = cores()
        for _ in 0..<1000 {
            let count = Int.random(in: 0...200, using: &rng)
            exercise((0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }, responder, querier)
        }
    }

    /// Valid messages, truncated at every length and with bytes flipped:
    /// the interesting cases are inside names, pointers and rdata. (A
    /// thousand mutations: the coverage-guided search is the `dns` fuzz
    /// target's, whose corpus FuzzCorpusTests replays.)
    @Test func truncatedAndMutatedMessagesNeverCrash() {
        var rng = SeededRandom(seed: 0x6763)
        let (responder, querier) = cores()
        let instance = DNSName(instance: "x y", in: DNSName("_chatcli._udp.local")!)!
        let valid = DNSMessage(flags: DNSMessage.responseFlags,
            questions: [DNSQuestion(name: instance, type: .any)],
            answers: [DNSRecord(name: DNSName("_chatcli._udp.local")!, data: .ptr(instance), ttl: 4500)],
            additionals: [DNSRecord(name: instance, data: .srv(priority: 0, weight: 0, port: 9, target: DNSName("h.local")!), ttl: 120),
                          DNSRecord(name: instance, data: .txt([Array("v=1".utf8)]), ttl: 120),
                          DNSRecord(name: DNSName("h.local")!, data: .a([1, 2, 3, 4]), ttl: 120)]).encoded()
        for length in 0...valid.count { exercise(Array(valid.prefix(length)), responder, querier) }
        for _ in 0..<1000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            exercise(Array(bytes.prefix(Int.random(in: 12...bytes.count, using: &rng))), responder, querier)
        }
    }
}
