import Foundation
import TestSupport
import PeerConnection
import STUN
import Testing

/// The network changing under a live connection (sans-IO; the runtime side
/// is in EndToEndTests/NetworkChangeTests): the offerer restarts on its own
/// change, the answerer tells it by trickling its new host candidate, and
/// the chat moves to the new address with nothing lost.
@Suite(.serialized) struct NetworkChangeTests {
    @Test func theOffererSeesItsOwnChangeAsAPathToRestart() throws {
        let pair = try PeerPair(index: 11, link: .init(delay: .milliseconds(5)), seed: 81)
        drive(pair, timeout: 10) { pair.bothConnected || pair.failure != nil }
        try #require(pair.bothConnected, "\(pair.failure ?? "timed out")")
        pair.offerer.localAddressesChanged(added: [], removed: [], now: pair.now)
        drive(pair, timeout: 0.1) { false }
        #expect(pair.offererEvents.contains { $0.isNetworkChanged })
        #expect(pair.offerer.isPathDown)
        #expect(!pair.answererEvents.contains { $0.isNetworkChanged })
    }

    @Test func theAnswerersNewAddressMakesTheOffererRestartAndNothingIsLost() throws {
        let pair = try PeerPair(index: 12, link: .init(delay: .milliseconds(5)), seed: 82)
        drive(pair, timeout: 10) { pair.bothConnected || pair.failure != nil }
        try #require(pair.bothConnected, "\(pair.failure ?? "timed out")")
        drive(pair, timeout: 1.2) { false }   // past the initial trickle
        #expect(!pair.offererEvents.contains { $0.isNetworkChanged })

        // The answerer's address is replaced: datagrams to the old one are lost.
        let moved = try #require(STUNAddress(ip: [10, 3, 0, 12], port: 6001))
        pair.answerer.localAddressesChanged(added: [moved], removed: [pair.answererAddress], now: pair.now)
        let during = (0..<5).map { "during \($0)" }
        for text in during { try pair.offerer.send(text: text) }
        drive(pair, timeout: 1) { pair.offererEvents.contains { $0.isNetworkChanged } }
        #expect(pair.answererEvents.contains { $0.isNetworkChanged })   // its selected base is gone
        #expect(pair.offererEvents.contains { $0.isNetworkChanged })    // it heard the late host candidate
        #expect(pair.offerer.isPathDown)

        let answer = try pair.answerer.acceptOffer(pair.offerer.restartICE())
        try pair.offerer.acceptAnswer(answer)
        drive(pair, timeout: 10) {
            pair.offererEvents.contains { $0.isReconnected } && pair.answererEvents.compactMap(\.text).count == during.count
        }
        #expect(pair.offererEvents.contains { $0.isReconnected })
        #expect(pair.answererEvents.contains { $0.isReconnected })
        #expect(pair.answererEvents.compactMap(\.text) == during)
        #expect(pair.offerer.selectedPair?.remoteAddress == moved)
        #expect(pair.failure == nil)
    }

    @Test func aHostCandidateDuringTheInitialTrickleIsNoChange() throws {
        let pair = try PeerPair(index: 13, link: .init(delay: .milliseconds(5)), seed: 83)
        drive(pair, timeout: 10) { pair.bothConnected || pair.failure != nil }
        try #require(pair.bothConnected)
        // Within the grace after the answer: part of the initial gathering.
        pair.offerer.addRemoteCandidate("candidate:9 1 udp 2122260223 10.9.9.9 7000 typ host")
        drive(pair, timeout: 0.1) { false }
        #expect(!pair.offererEvents.contains { $0.isNetworkChanged })
        #expect(!pair.offerer.isPathDown)
    }
}

extension PeerConnectionEvent {
    var isNetworkChanged: Bool { if case .networkChanged = self { return true } else { return false } }
}
