import Foundation
import TestSupport
import PeerConnection
import STUN
import Testing

@Suite(.computeThreadFirst, .serialized) struct PeerConnectionTests {
    @Test func twoPeersConnectAndChat() throws {
        let pair = try PeerPair(index: 1, link: .perfect, seed: 7)
        drive(pair, timeout: 10) { pair.bothConnected || pair.failure != nil }
        #expect(pair.failure == nil, "\(pair.failure ?? "")")
        #expect(pair.bothConnected)
        let sasA = pair.offerer.connectionInfo?.sas, sasB = pair.answerer.connectionInfo?.sas
        #expect(sasA != nil && sasA == sasB)
        #expect(pair.offerer.connectionInfo?.path == "host")
        try pair.offerer.send(text: "hello 👋")
        try pair.answerer.send(text: "hi back")
        drive(pair, timeout: 5) { pair.answererEvents.contains { $0.text != nil } && pair.offererEvents.contains { $0.text != nil } }
        #expect(pair.answererEvents.compactMap(\.text) == ["hello 👋"])
        #expect(pair.offererEvents.compactMap(\.text) == ["hi back"])
    }

    /// 250 full connections (ICE, DTLS, SCTP, the chat channel; ×`CHATCLI_STRESS`) over links
    /// with 10 % loss, 5 % duplication, 10 % reordering and 50 ms ± 20 ms, on
    /// the manual clock: seconds of CPU, however many simulated seconds the
    /// unluckiest pairs need, and no wall-clock limit.
    @Test func hundredsOfHandshakesOverALossyLinkAllSucceed() throws {
        var failed: [(Int, String)] = []
        var slowest: Duration = .zero
        let count = Stress.runs(250)
        for i in 0..<count {
            let pair = try PeerPair(index: i + 2, link: .hostile, seed: UInt64(1000 + i))
            drive(pair, timeout: 120) { pair.bothConnected || pair.failure != nil }
            if !pair.bothConnected { failed.append((i, pair.failure ?? "not connected after 120 s")) }
            slowest = max(slowest, pair.now - .seconds(1))
        }
        print("\(count) connections over a hostile link: the slowest took \(slowest) of simulated time")
        #expect(failed.isEmpty, "\(failed.count) of \(count) did not connect; first: \(failed.first.map { "#\($0.0): \($0.1)" } ?? "")")
    }

    @Test func messagesOfEverySizeArriveOnceInOrderOverALossyLink() throws {
        let pair = try PeerPair(index: 3000, link: .hostile, seed: 99)
        drive(pair, timeout: 30) { pair.bothConnected || pair.failure != nil }
        try #require(pair.bothConnected, "\(pair.failure ?? "timed out")")
        var rng = SeededRandom(seed: 5)
        var sent: [String] = []
        for i in 0..<300 {
            let size = i % 50 == 0 ? Int.random(in: 1...262_000, using: &rng) : Int.random(in: 1...2000, using: &rng)
            let text = "\(i):" + String(repeating: "é", count: size / 2)
            try pair.offerer.send(text: text)
            sent.append(text)
        }
        drive(pair, timeout: 90) { pair.answererEvents.compactMap(\.text).count >= sent.count }
        let got = pair.answererEvents.compactMap(\.text)
        #expect(got.count == sent.count)
        #expect(got == sent, "first difference at \(Array(zip(got, sent)).firstIndex { $0 != $1 } ?? min(got.count, sent.count))")
        drive(pair, timeout: 10) { pair.offerer.isFullyAcknowledged }
        #expect(pair.offerer.isFullyAcknowledged)
    }

    @Test func largeMessagesArriveOnACleanLink() throws {
        let pair = try PeerPair(index: 3001, link: .init(delay: .milliseconds(1)), seed: 11)
        drive(pair, timeout: 10) { pair.bothConnected || pair.failure != nil }
        try #require(pair.bothConnected, "\(pair.failure ?? "timed out")")
        let sizes = [10, 2000, 5000, 70_000, 262_000]
        for size in sizes { try pair.offerer.send(text: String(repeating: "x", count: size)) }
        drive(pair, timeout: 20) { pair.answererEvents.compactMap(\.text).count >= sizes.count }
        #expect(pair.answererEvents.compactMap(\.text).map(\.count) == sizes)
    }

    @Test func aSwappedFingerprintIsRefusedAndNothingIsDelivered() throws {
        // A man in the middle on the signaling path replaces the offer's fingerprint.
        let pair = try PeerPair(index: 3002, link: .init(delay: .milliseconds(1)), seed: 13, tamperOfferFingerprint: true)
        drive(pair, timeout: 15) { pair.failure != nil }
        let failure = try #require(pair.failure, "the swapped fingerprint went unnoticed")
        #expect(failure.contains("does not match the fingerprint"), "\(failure)")
        #expect(!pair.offererEvents.contains(where: \.isConnected) && !pair.answererEvents.contains(where: \.isConnected))
    }

    @Test func candidatesBeforeTheRemoteDescriptionAreBuffered() throws {
        let offerer = try PeerConnection(isOfferer: true, localAddresses: [], now: .zero)
        let answerer = try PeerConnection(isOfferer: false, localAddresses: [STUNAddress(ip: [10, 9, 9, 8], port: 4000)!], now: .zero)
        answerer.addRemoteCandidate("candidate:1 1 udp 2130706431 10.9.9.9 5000 typ host")
        answerer.addRemoteCandidate("")
        _ = try answerer.acceptOffer(offerer.createOffer())
        // The buffered candidate is now paired: the agent has a check to send to it.
        var targets: [String] = []
        for _ in 0..<10 {
            answerer.handleTimeout(now: .seconds(1))
            while let t = answerer.pollTransmit() { targets.append(t.destination.description) }
        }
        #expect(targets.contains("10.9.9.9:5000"), "\(targets)")
    }

    @Test func garbageSessionDescriptionsAreClearErrors() throws {
        let answerer = try PeerConnection(isOfferer: false, localAddresses: [], now: .zero)
        #expect(throws: PeerConnectionError.self) { _ = try answerer.acceptOffer("v=0\r\nnonsense") }
        var rng = SeededRandom(seed: 3)
        let offer = Array(try PeerConnection(isOfferer: true, localAddresses: [], now: .zero).createOffer().utf8)
        for _ in 0..<500 {
            var bytes = offer
            for _ in 0..<3 { bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...127, using: &rng) }
            _ = try? PeerConnection(isOfferer: false, localAddresses: [], now: .zero).acceptOffer(String(decoding: bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)), as: UTF8.self))
        }
    }
}
