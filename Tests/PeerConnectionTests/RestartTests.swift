import Foundation
import TestSupport
@testable import PeerConnection
import Testing

/// A cut path is noticed through consent checks, an ICE restart is signalled
/// over the (reliable) signaling, and the channel carries on: what was sent
/// during the outage arrives once, in order, without a new DTLS handshake.
@Suite(.serialized) struct RestartTests {
    static func fastConsent(_ config: inout PeerConnectionConfig) {
        config.ice.consentInterval = .milliseconds(200)
        config.ice.disconnectedTimeout = .milliseconds(800)
        config.ice.consentTimeout = .seconds(3)
    }

    @Test func aRestartAfterACutPathResumesTheChatWithNothingLost() throws {
        let pair = try PeerPair(index: 1, link: .init(delay: .milliseconds(5)), seed: 71, configure: Self.fastConsent)
        drive(pair, timeout: 10) { pair.bothConnected || pair.failure != nil }
        try #require(pair.bothConnected, "\(pair.failure ?? "timed out")")
        let sas = pair.offerer.connectionInfo?.sas
        try pair.offerer.send(text: "before")
        drive(pair, timeout: 5) { pair.answererEvents.contains { $0.text == "before" } }

        pair.cut = true
        let during = (0..<20).map { "during \($0)" }
        for text in during { try pair.offerer.send(text: text) }
        try pair.answerer.send(text: "answerer during")
        drive(pair, timeout: 5) { pair.offererEvents.contains(where: \.isDisconnected) }
        #expect(pair.offererEvents.contains { $0.isDisconnected })
        #expect(pair.offerer.isPathDown)
        #expect(pair.failure == nil)

        // The restart goes out while the path is still cut; checks keep retrying.
        let offer = pair.offerer.restartICE()
        #expect(pair.answerer.isSameSession(offer))
        let answer = try pair.answerer.acceptOffer(offer)
        try pair.offerer.acceptAnswer(answer)
        drive(pair, timeout: 0.5) { false }
        pair.cut = false
        drive(pair, timeout: 10) {
            pair.offererEvents.contains(where: \.isReconnected) && pair.answererEvents.compactMap(\.text).count == 21
                && pair.offererEvents.compactMap(\.text) == ["answerer during"]
        }
        #expect(pair.offererEvents.contains { $0.isReconnected })
        #expect(pair.answererEvents.compactMap(\.text) == ["before"] + during)
        #expect(pair.offererEvents.compactMap(\.text) == ["answerer during"])
        #expect(pair.offerer.connectionInfo?.sas == sas)
        #expect(pair.failure == nil)
        #expect(!pair.offerer.isPathDown)
        // The answerer of the restart is back too, and says so.
        drive(pair, timeout: 5) { pair.answererEvents.contains(where: \.isReconnected) }
        #expect(!pair.answerer.isPathDown)
        #expect(pair.answererEvents.contains { $0.isDisconnected } == pair.answererEvents.contains { $0.isReconnected })
    }

    @Test func consentComingBackWithoutARestartResumesToo() throws {
        let pair = try PeerPair(index: 2, link: .init(delay: .milliseconds(5)), seed: 72, configure: Self.fastConsent)
        drive(pair, timeout: 10) { pair.bothConnected || pair.failure != nil }
        try #require(pair.bothConnected)
        pair.cut = true
        try pair.answerer.send(text: "queued")
        drive(pair, timeout: 5) { pair.offererEvents.contains(where: \.isDisconnected) }
        pair.cut = false
        drive(pair, timeout: 5) { pair.offererEvents.contains(where: \.isReconnected) && pair.offererEvents.contains { $0.text == "queued" } }
        #expect(pair.offererEvents.contains { $0.isReconnected })
        #expect(pair.offererEvents.compactMap(\.text) == ["queued"])
    }

    @Test func anOfferWithAnotherCertificateIsANewConnectionNotARestart() throws {
        let pair = try PeerPair(index: 3, link: .init(delay: .milliseconds(5)), seed: 73)
        drive(pair, timeout: 10) { pair.bothConnected || pair.failure != nil }
        try #require(pair.bothConnected)
        let stranger = try PeerConnection(isOfferer: true, localAddresses: [], now: pair.now)
        let offer = stranger.createOffer()
        #expect(!pair.answerer.isSameSession(offer))
        #expect(throws: PeerConnectionError.certificateChanged) { _ = try pair.answerer.acceptOffer(offer) }
        #expect(pair.answerer.isOpen)
    }

    @Test func theSameCertificateInANewConnectionIsANewConnectionNotARestart() throws {
        // A resumed session presents its saved certificate: `a=tls-id` tells its new association apart.
        let pair = try PeerPair(index: 5, link: .init(delay: .milliseconds(5)), seed: 75)
        drive(pair, timeout: 10) { pair.bothConnected || pair.failure != nil }
        try #require(pair.bothConnected)
        var config = PeerConnectionConfig()
        config.certificate = pair.offerer.certificate
        let resumed = try PeerConnection(isOfferer: true, localAddresses: [], config: config, now: pair.now)
        #expect(resumed.localFingerprint == pair.offerer.localFingerprint)
        let offer = resumed.createOffer()
        #expect(!pair.answerer.isSameSession(offer))
        #expect(throws: PeerConnectionError.certificateChanged) { _ = try pair.answerer.acceptOffer(offer) }
        #expect(pair.answerer.isSameSession(pair.offerer.restartICE()), "a restart keeps its tls-id")
    }

    @Test func aFailureBeforeDTLSIsStillAFailure() throws {
        let pair = try PeerPair(index: 4, link: .init(delay: .milliseconds(5)), seed: 74) { config in
            Self.fastConsent(&config)
            config.ice.connectTimeout = .seconds(1)
        }
        pair.cut = true
        drive(pair, timeout: 5) { pair.failure != nil }
        #expect(pair.failure != nil)
        #expect(!pair.offererEvents.contains { $0.isDisconnected })
    }
}

extension PeerConnectionEvent {
    var isDisconnected: Bool { if case .disconnected = self { return true } else { return false } }
    var isReconnected: Bool { if case .reconnected = self { return true } else { return false } }
}
