import Testing
import DTLS

@Suite struct DTLSEndpointTests {
    @Test func handshakeCompletesAndDataFlowsBothWays() throws {
        let pair = try EndpointPair()
        pair.settle()
        #expect(pair.bothConnected)
        #expect(pair.clientEvents.first == .connected(peerFingerprint: pair.serverCertificate.fingerprint))
        #expect(pair.serverEvents.first == .connected(peerFingerprint: pair.clientCertificate.fingerprint))
        #expect(pair.client.cipherSuite == "ECDHE-ECDSA-AES128-GCM-SHA256")
        #expect(pair.client.maxPlaintextSize == 1200 - 13 - 8 - 16)

        try pair.client.send(Array("hello server".utf8))
        try pair.server.send(Array("hello client".utf8))
        try pair.server.send([1, 2, 3])
        pair.settle()
        #expect(pair.serverData() == [Array("hello server".utf8)])
        #expect(pair.clientData() == [Array("hello client".utf8), [1, 2, 3]])
        #expect(pair.largestDatagram <= 1200)
    }

    @Test func everyDatagramFitsTheMTUEvenWhenTheFlightIsFragmented() throws {
        let pair = try EndpointPair(mtu: 300)
        var sizes: [Int] = []
        pair.tamper = { _, d in sizes.append(d.count); return d }
        pair.settle()
        #expect(pair.bothConnected)
        #expect(sizes.allSatisfy { $0 <= 300 })
        let limit = pair.client.maxPlaintextSize
        sizes.removeAll()
        try pair.client.send([UInt8](repeating: 7, count: limit))
        pair.settle()
        #expect(sizes == [300])
        #expect(pair.serverData() == [[UInt8](repeating: 7, count: limit)])
        #expect(throws: DTLSError.messageTooLarge(size: limit + 1, limit: limit)) {
            try pair.client.send([UInt8](repeating: 7, count: limit + 1))
        }
    }

    @Test func fullSizeRecordAtDefaultMTUIsOneDatagramOf1200Bytes() throws {
        let pair = try EndpointPair()
        pair.settle()
        var sizes: [Int] = []
        pair.tamper = { _, d in sizes.append(d.count); return d }
        try pair.server.send([UInt8](repeating: 1, count: pair.server.maxPlaintextSize))
        pair.settle()
        #expect(sizes == [1200])
    }

    @Test func severalRecordsInOneDatagramAreAllDelivered() throws {
        let pair = try EndpointPair()
        pair.settle()
        try pair.client.send([1])
        try pair.client.send([2, 2])
        try pair.client.send([3, 3, 3])
        var glued: [UInt8] = []
        while let d = pair.client.pollTransmit() { glued += d }
        pair.server.handleInput(datagram: glued, now: pair.now)
        var data: [[UInt8]] = []
        while let e = pair.server.pollEvent() { if case .data(let d) = e { data.append(d) } }
        #expect(data == [[1], [2, 2], [3, 3, 3]])
    }

    @Test func tamperedApplicationRecordIsDroppedAndTheAssociationSurvives() throws {
        let pair = try EndpointPair()
        pair.settle()
        var flip = true
        pair.tamper = { fromClient, d in
            guard fromClient, flip, d.count > 20 else { return d }
            flip = false
            var changed = d
            changed[changed.count - 5] ^= 0x01  // inside the GCM tag/ciphertext
            return changed
        }
        try pair.client.send(Array("tampered".utf8))
        pair.settle()
        #expect(pair.serverData().isEmpty)
        #expect(pair.server.state == .connected)
        try pair.client.send(Array("intact".utf8))
        pair.settle()
        #expect(pair.serverData() == [Array("intact".utf8)])
    }

    @Test func tamperedHeaderOrTruncatedRecordIsDroppedToo() throws {
        let pair = try EndpointPair()
        pair.settle()
        try pair.client.send(Array("x".utf8))
        guard let d = pair.client.pollTransmit() else { Issue.record("no datagram"); return }
        for i in 0..<d.count {
            var changed = d
            changed[i] ^= 0x80
            pair.server.handleInput(datagram: changed, now: pair.now)
            pair.server.handleInput(datagram: Array(d.prefix(i)), now: pair.now)
        }
        var delivered: [DTLSEvent] = []
        while let e = pair.server.pollEvent() { delivered.append(e) }
        #expect(delivered.isEmpty)
        #expect(pair.server.state == .connected)
        pair.server.handleInput(datagram: d, now: pair.now)
        #expect(pair.server.pollEvent() == .data(Array("x".utf8)))
    }

    @Test func clientRejectsAServerWhoseCertificateDoesNotMatchItsFingerprint() throws {
        let impostor = try DTLSCertificate()
        let pair = try EndpointPair(clientExpects: impostor.fingerprint)
        pair.settle()
        #expect(pair.clientEvents == [.failed(.fingerprintMismatch)])
        #expect(pair.client.state == .failed)
        #expect(!pair.serverConnected)  // the client aborts before sending Finished
        #expect(pair.server.state == .failed)
        #expect(pair.clientData().isEmpty && pair.serverData().isEmpty)
        #expect(DTLSError.fingerprintMismatch.description ==
            "the peer's certificate does not match the fingerprint it announced — possible man-in-the-middle")
        #expect(throws: DTLSError.notConnected) { try pair.client.send([1]) }
    }

    @Test func serverRejectsAClientWhoseCertificateDoesNotMatchItsFingerprint() throws {
        let impostor = try DTLSCertificate()
        let pair = try EndpointPair(serverExpects: impostor.fingerprint)
        pair.settle()
        #expect(pair.serverEvents == [.failed(.fingerprintMismatch)])
        #expect(pair.client.state != .connected || !pair.serverConnected)
        // The client may have finished its side, but whatever it sends is never delivered.
        if pair.client.state == .connected { try pair.client.send(Array("secret".utf8)) }
        pair.settle()
        #expect(pair.serverData().isEmpty)
        #expect(!pair.serverConnected)
    }

    @Test func closeNotifyGivesTheClosedEvent() throws {
        let pair = try EndpointPair()
        pair.settle()
        pair.client.close()
        let closeNotify = try #require(pair.client.pollTransmit())
        #expect(closeNotify.count == 13 + 8 + 2 + 16)  // one encrypted alert record
        pair.server.handleInput(datagram: closeNotify, now: pair.now)
        while let e = pair.server.pollEvent() { pair.serverEvents.append(e) }
        #expect(pair.server.pollTransmit() != nil)  // the server answers with its own
        #expect(pair.serverEvents.last == .closed)
        #expect(pair.server.state == .closed)
        #expect(pair.client.state == .closed)
        #expect(throws: DTLSError.notConnected) { try pair.client.send([1]) }
    }

    @Test func timerIsArmedDuringTheHandshakeAndStartsShort() throws {
        let pair = try EndpointPair()
        let due = try #require(pair.client.pollTimeout())
        #expect(due == pair.now + .milliseconds(150))
        #expect(pair.server.pollTimeout() == nil)  // nothing sent yet
        pair.settle()
        #expect(pair.bothConnected)
        #expect(pair.client.pollTimeout() == nil)
        #expect(pair.server.pollTimeout() == nil)
    }

    @Test func lostFlightIsRetransmittedWhenTheCoreClockSaysSo() throws {
        let pair = try EndpointPair()
        let start = pair.now
        let hello = try #require(pair.client.pollTransmit())  // the first ClientHello is lost
        #expect(pair.client.pollTransmit() == nil)
        pair.client.handleTimeout(now: start + .milliseconds(149))  // too early: nothing happens
        #expect(pair.client.pollTransmit() == nil)
        pair.client.handleTimeout(now: start + .milliseconds(150))  // no wall-clock time has passed
        let again = try #require(pair.client.pollTransmit())
        #expect(again.count == hello.count)
        #expect(pair.client.pollTimeout() == start + .milliseconds(450))  // backed off to 300 ms
        pair.network.advance(to: start + .milliseconds(150))
        pair.network.send(again, from: .client, to: .server)
        pair.settle()
        #expect(pair.bothConnected)
    }

    @Test func retransmissionsBackOffToFourSecondsAndThenTheHandshakeGivesUp() throws {
        let pair = try EndpointPair()
        var now = pair.now
        var intervals: [Duration] = []
        while let due = pair.client.pollTimeout() {
            intervals.append(due - now)
            now = due
            pair.client.handleTimeout(now: now)
            while pair.client.pollTransmit() != nil {}
        }
        #expect(intervals.prefix(6) == [.milliseconds(150), .milliseconds(300), .milliseconds(600),
                                        .milliseconds(1200), .milliseconds(2400), .seconds(4)])
        #expect(intervals.count == 13)
        #expect(pair.client.state == .failed)
        #expect(pair.client.pollEvent() == .failed(.handshakeTimedOut))
    }
}
