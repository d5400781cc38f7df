import STUN
import Testing
import TURN
import TURNServer

@Test func aRequestWithoutIntegrityIsChallengedWith401RealmAndNonce() {
    let lab = RelayLab()
    let reply = lab.raw(RawRequest(method: .allocate, attributes: [.requestedTransport(17)]).bytes(), from: RelayLab.tuple(1)).onlyMessage
    #expect(reply?.code == 401)
    #expect(reply?.realm == "lab.test")
    #expect(reply?.nonce?.utf8.count == 40)
    #expect(lab.server.allocationCount == 0)
}

@Test func aWrongMACIsRefusedWith401() {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    session.learnNonce()
    session.password = "not-the-password"
    #expect(session.send(.allocate, [.requestedTransport(17)])?.code == 401)
    #expect(lab.server.allocationCount == 0)
}

@Test func credentialsSignedWithAnotherSecretAreRefusedWith401() {
    let lab = RelayLab()
    let alice = RelayLab.tuple(1)
    let client = lab.addClient(alice, secret: Array("other-secret".utf8))
    #expect(!client.isAllocated)
    #expect(lab.server.allocationCount == 0)
}

@Test func anExpiredRESTUsernameIsRefusedWith401() {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1), expiry: RelayLab.unixTime - 1)
    session.learnNonce()
    #expect(session.send(.allocate, [.requestedTransport(17)])?.code == 401)
}

@Test func aUsernameThatIsNotARESTUsernameIsRefusedWith401() {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    session.learnNonce()
    session.username = "alice"
    session.password = RESTCredential.password(secret: RelayLab.secret, username: "alice")!
    #expect(session.send(.allocate, [.requestedTransport(17)])?.code == 401)
}

@Test func anExpiredNonceGets438AndAFreshNonceThatWorks() throws {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    session.learnNonce()
    let old = session.nonce
    lab.now += .seconds(601)
    let stale = try #require(session.send(.allocate, [.requestedTransport(17)]))
    #expect(stale.code == 438)
    let fresh = try #require(stale.nonce)
    #expect(fresh != old)
    session.nonce = fresh
    #expect(session.send(.allocate, [.requestedTransport(17)])?.xorRelayedAddress != nil)
}

@Test func aNonceReplayedFromAnotherAddressGets438() {
    let lab = RelayLab()
    let first = RawSession(lab, RelayLab.tuple(1))
    first.learnNonce()
    let thief = RawSession(lab, RelayLab.tuple(2))
    thief.nonce = first.nonce
    #expect(thief.send(.allocate, [.requestedTransport(17)])?.code == 438)
    thief.nonce = "0000000000000000000000000000000000000000"
    #expect(thief.send(.allocate, [.requestedTransport(17)])?.code == 438)
    thief.nonce = "not even hex"
    #expect(thief.send(.allocate, [.requestedTransport(17)])?.code == 438)
}

@Test func missingUsernameRealmOrNonceIs400() {
    let lab = RelayLab()
    let tuple = RelayLab.tuple(1)
    // MESSAGE-INTEGRITY with no USERNAME: sign with some key directly.
    let message = STUNMessage(type: STUNMessageType(method: .allocate, messageClass: .request),
                              transactionID: STUNTransactionID(high: 1, low: 1), attributes: [.requestedTransport(17)])
    let bytes = message.encoded(integrity: STUNKey(bytes: [1, 2, 3]))
    #expect(lab.raw(bytes, from: tuple).onlyMessage?.code == 400)
}

@Test func oversizeUsernameIs400() {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    session.learnNonce()
    session.username = "1900000000:" + String(repeating: "a", count: 600)
    #expect(session.send(.allocate, [.requestedTransport(17)])?.code == 400)
}

@Test func allocateWithoutRequestedTransportIs400AndWithTCPIs442() {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    session.learnNonce()
    #expect(session.send(.allocate, [])?.code == 400)
    #expect(session.send(.allocate, [.requestedTransport(6)])?.code == 442)
}

@Test func unknownComprehensionRequiredAttributesAre420AndListed() throws {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    session.learnNonce()
    let unknown = STUNAttributeType(rawValue: 0x7777)
    let reply = try #require(session.send(.allocate, [.requestedTransport(17), .other(unknown, [1, 2, 3, 4])]))
    #expect(reply.code == 420)
    #expect(reply.unknownAttributes == [unknown])
    // RFC 8656 §7.2: DONT-FRAGMENT from a server that cannot set DF is unknown too.
    #expect(session.send(.allocate, [.requestedTransport(17), .dontFragment])?.unknownAttributes == [.dontFragment])
    #expect(lab.server.allocationCount == 0)
}

@Test func evenPortGetsAnEvenRelayedPortButAReservationIs508() throws {
    let lab = RelayLab()
    let first = RawSession(lab, RelayLab.tuple(1), user: "a")
    #expect(first.allocate() != nil)
    let even = RawSession(lab, RelayLab.tuple(2), user: "b")
    let relayed = try #require(even.allocate([.evenPort(reserveNextPort: false)]))
    #expect(relayed.port % 2 == 0)
    let reserving = RawSession(lab, RelayLab.tuple(3), user: "c")
    reserving.learnNonce()
    #expect(reserving.send(.allocate, [.requestedTransport(17), .evenPort(reserveNextPort: true)])?.code == 508)
}

@Test func anIPv6RelayFromAnIPv4OnlyRelayIs440() {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    session.learnNonce()
    #expect(session.send(.allocate, [.requestedTransport(17), .requestedAddressFamily(.ipv6)])?.code == 440)
}

@Test func aSecondAllocateOnTheSameTupleIs437ButARetransmissionGetsTheSameAnswer() throws {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    session.learnNonce()
    let id = session.nextID()
    let first = try #require(session.send(.allocate, [.requestedTransport(17)], id: id))
    #expect(first.isSuccess)
    #expect(session.send(.allocate, [.requestedTransport(17)], id: id) == first)
    #expect(session.send(.allocate, [.requestedTransport(17)])?.code == 437)
    #expect(lab.server.allocationCount == 1)
}

@Test func requestsWithoutAnAllocationAre437() {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    session.learnNonce()
    let peer = STUNAddress(ipv4: 198, 51, 100, 1, port: 1)
    #expect(session.send(.refresh, [.lifetime(600)])?.code == 437)
    #expect(session.send(.createPermission, [.xorPeerAddress(peer)])?.code == 437)
    #expect(session.send(.channelBind, [.channelNumber(0x4000), .xorPeerAddress(peer)])?.code == 437)
}

@Test func anotherUserOnTheSameTupleIs441() {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1), user: "alice")
    _ = session.allocate()
    (session.username, session.password) = RelayLab.credentials(user: "bob")
    #expect(session.send(.refresh, [.lifetime(600)])?.code == 441)
}

@Test func peersOfAnotherFamilyAre443() {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    _ = session.allocate()
    let v6 = STUNAddress(ipv6: (0x2001, 0xdb8, 0, 0, 0, 0, 0, 1), port: 5)
    #expect(session.send(.createPermission, [.xorPeerAddress(v6)])?.code == 443)
    #expect(session.send(.channelBind, [.channelNumber(0x4000), .xorPeerAddress(v6)])?.code == 443)
    #expect(session.send(.refresh, [.requestedAddressFamily(.ipv6)])?.code == 443)
}

@Test func theUserQuotaIs486AndOtherUsersStillAllocate() {
    let lab = RelayLab { $0.allocationsPerUser = 2 }
    for port in UInt16(1)...2 {
        let session = RawSession(lab, RelayLab.tuple(1, port: port), user: "flood")
        #expect(session.allocate() != nil)
    }
    let third = RawSession(lab, RelayLab.tuple(1, port: 3), user: "flood")
    third.learnNonce()
    #expect(third.send(.allocate, [.requestedTransport(17)])?.code == 486)
    let other = RawSession(lab, RelayLab.tuple(2), user: "someone-else")
    #expect(other.allocate() != nil)
    #expect(lab.server.statistics.errors[486] == 1)
}

@Test func oneAddressWithFreshCredentialsEachTimeIsStillHeldTo486() {
    let lab = RelayLab { $0.allocationsPerClientAddress = 3 }
    for port in UInt16(1)...3 {
        let session = RawSession(lab, RelayLab.tuple(5, port: port), user: "anon\(port)")
        #expect(session.allocate() != nil)
    }
    let fourth = RawSession(lab, RelayLab.tuple(5, port: 4), user: "anon4")
    fourth.learnNonce()
    #expect(fourth.send(.allocate, [.requestedTransport(17)])?.code == 486)
    let elsewhere = RawSession(lab, RelayLab.tuple(6), user: "anon5")
    #expect(elsewhere.allocate() != nil)
}

@Test func theTotalCapacityIs508() {
    let lab = RelayLab { $0.maxAllocations = 3 }
    for octet in UInt8(1)...3 {
        let session = RawSession(lab, RelayLab.tuple(octet), user: "user\(octet)")
        #expect(session.allocate() != nil)
    }
    let late = RawSession(lab, RelayLab.tuple(4), user: "late")
    late.learnNonce()
    #expect(late.send(.allocate, [.requestedTransport(17)])?.code == 508)
}

@Test func aRelaySocketThatCannotBeOpenedIs508() {
    let lab = RelayLab()
    lab.canOpenRelays = false
    let session = RawSession(lab, RelayLab.tuple(1))
    session.learnNonce()
    #expect(session.send(.allocate, [.requestedTransport(17)])?.code == 508)
    #expect(lab.server.allocationCount == 0)
}

@Test func tooManyPermissionsAre508() {
    let lab = RelayLab { $0.permissionsPerAllocation = 2 }
    let session = RawSession(lab, RelayLab.tuple(1))
    _ = session.allocate()
    let peers = (UInt8(1)...3).map { STUNAddress(ipv4: 198, 51, 100, $0, port: 1) }
    #expect(session.send(.createPermission, [.xorPeerAddress(peers[0]), .xorPeerAddress(peers[1])])?.isSuccess == true)
    #expect(session.send(.createPermission, [.xorPeerAddress(peers[2])])?.code == 508)
    // Refreshing an existing one is still fine.
    #expect(session.send(.createPermission, [.xorPeerAddress(peers[0])])?.isSuccess == true)
}

@Test func createPermissionWithoutPeerIs400() {
    let lab = RelayLab()
    let session = RawSession(lab, RelayLab.tuple(1))
    _ = session.allocate()
    #expect(session.send(.createPermission, [])?.code == 400)
}

@Test func unknownMethodsAre400AndResponsesAndGarbageGetNothing() {
    let lab = RelayLab()
    let tuple = RelayLab.tuple(1)
    let odd = RawRequest(method: STUNMethod(rawValue: 0x0F0)).bytes()
    #expect(lab.raw(odd, from: tuple).onlyMessage?.code == 400)
    let response = STUNMessage(type: .bindingSuccess, transactionID: STUNTransactionID(high: 1, low: 1)).encoded()
    #expect(lab.raw(response, from: tuple).isEmpty)
    #expect(lab.raw([0, 1, 0, 4, 0x21, 0x12], from: tuple).isEmpty)
    #expect(lab.raw([], from: tuple).isEmpty)
    var corruptFingerprint = RawRequest(method: .allocate).bytes()
    corruptFingerprint[corruptFingerprint.count - 1] ^= 1
    #expect(lab.raw(corruptFingerprint, from: tuple).isEmpty)
}

@Test func aMalformedKnownAttributeIs400() {
    let lab = RelayLab()
    // LIFETIME with 3 bytes: frames as STUN, fails to decode.
    var bytes: [UInt8] = [0x00, 0x03, 0x00, 0x08, 0x21, 0x12, 0xA4, 0x42] + [UInt8](repeating: 9, count: 12)
    bytes += [0x00, 0x0D, 0x00, 0x03, 1, 2, 3, 0]
    #expect(lab.raw(bytes, from: RelayLab.tuple(1)).onlyMessage?.code == 400)
}

@Test func bindingRequestsAreAnsweredWithoutCredentials() {
    let lab = RelayLab()
    let tuple = RelayLab.tuple(1)
    let reply = lab.raw(RawRequest(method: .binding).bytes(), from: tuple).onlyMessage
    #expect(reply?.isSuccess == true)
    #expect(reply?.xorMappedAddress == tuple.client)
}

/// A cluster's relay learns (or is told of) a new REST secret: credentials
/// signed with the old one were already handed out, so they still allocate
/// until the old secret retires; then only the new one's do.
@Test func credentialsSignedWithAReplacedSecretAllocateUntilItRetires() {
    let lab = RelayLab()
    let renewed = Array("renewed-secret".utf8)
    lab.server.replaceSecret(renewed, retiredUntil: RelayLab.unixTime + 60)
    #expect(lab.addClient(RelayLab.tuple(1), user: "old", secret: RelayLab.secret).isAllocated)
    #expect(lab.addClient(RelayLab.tuple(2), user: "new", secret: renewed).isAllocated)
    #expect(!lab.addClient(RelayLab.tuple(3), user: "other", secret: Array("other-secret".utf8)).isAllocated)
    lab.now += .seconds(60)
    #expect(!lab.addClient(RelayLab.tuple(4), user: "late", secret: RelayLab.secret).isAllocated)
    #expect(lab.addClient(RelayLab.tuple(5), user: "newer", secret: renewed).isAllocated)
    #expect(lab.server.configuration.secret == renewed)
}
