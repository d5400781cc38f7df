import ICE
import STUN
import Testing
import TestSupport

/// The responder side of connectivity checks, driven by hand-made
/// requests.
struct IncomingCheckTests {
    static let local = ICECredentials(ufrag: "LOCAL1", pwd: "localpasswordlocalpassword")
    static let remote = ICECredentials(ufrag: "REMOTE", pwd: "remotepasswordremotepassword")
    static let base = STUNAddress(ipv4: 10, 0, 0, 2, port: 5000)
    static let peer = STUNAddress(ipv4: 203, 0, 113, 9, port: 6000)

    func makeAgent(role: ICERole = .controlled, tieBreaker: UInt64 = 1000) -> ICEAgent {
        let agent = ICEAgent(role: role, localCredentials: Self.local, tieBreaker: tieBreaker, now: .zero,
                             random: SeededRandom(seed: 1))
        agent.addLocalInterface(Self.base)
        agent.setRemoteCredentials(ufrag: Self.remote.ufrag, pwd: Self.remote.pwd)
        while agent.pollEvent() != nil {}
        return agent
    }

    func request(
        username: String? = "LOCAL1:REMOTE", key: STUNKey? = .shortTerm(password: local.pwd),
        extra: [STUNAttribute] = [.iceControlling(tieBreaker: 5)], id: UInt64 = 1
    ) -> [UInt8] {
        var attributes: [STUNAttribute] = []
        if let username { attributes.append(.username(username)) }
        attributes.append(.priority(1_845_501_695))
        attributes += extra
        return STUNMessage(type: .bindingRequest, transactionID: STUNTransactionID(high: 7, low: id), attributes: attributes)
            .encoded(integrity: key, fingerprint: true)
    }

    func answer(_ agent: ICEAgent, to datagram: [UInt8]) -> (STUNMessage, [UInt8])? {
        agent.handleInput(datagram, from: Self.peer, to: Self.base, now: .milliseconds(10))
        while let transmit = agent.pollTransmit() {
            guard transmit.destination == Self.peer, let message = try? STUNMessage.decode(transmit.bytes),
                  message.type.messageClass.isResponse
            else { continue }
            #expect(transmit.source == Self.base)
            return (message, transmit.bytes)
        }
        return nil
    }

    @Test func validCheckIsAnsweredWithTheSourceAddress() throws {
        let agent = makeAgent()
        let (response, bytes) = try #require(answer(agent, to: request()))
        #expect(response.type == .bindingSuccess)
        #expect(response.xorMappedAddress == Self.peer)
        #expect(STUNMessage.verifyIntegrity(of: bytes, key: .shortTerm(password: Self.local.pwd)) == .valid)
        #expect(STUNMessage.verifyFingerprint(of: bytes) == .valid)
    }

    @Test func checkFromUnknownSourceTriggersACheckBackToAPeerReflexiveCandidate() throws {
        let agent = makeAgent()
        _ = answer(agent, to: request())
        agent.handleTimeout(now: .milliseconds(10))
        var sawCheck = false
        while let transmit = agent.pollTransmit() {
            guard let message = try? STUNMessage.decode(transmit.bytes), message.type == .bindingRequest else { continue }
            sawCheck = transmit.destination == Self.peer
            #expect(message.username == "REMOTE:LOCAL1")
            #expect(message.contains(.iceControlled))
            #expect(STUNMessage.verifyIntegrity(of: transmit.bytes, key: .shortTerm(password: Self.remote.pwd)) == .valid)
        }
        #expect(sawCheck)
    }

    @Test func missingCredentialsAreABadRequest() throws {
        let (response, _) = try #require(answer(makeAgent(), to: request(username: nil)))
        #expect(response.errorCode?.code == 400)
        let (noMAC, _) = try #require(answer(makeAgent(), to: request(key: nil)))
        #expect(noMAC.errorCode?.code == 400)
    }

    @Test func wrongUsernameOrPasswordIsUnauthenticated() throws {
        let (wrongUser, _) = try #require(answer(makeAgent(), to: request(username: "OTHER:REMOTE")))
        #expect(wrongUser.errorCode?.code == 401)
        let (wrongKey, _) = try #require(answer(makeAgent(), to: request(key: .shortTerm(password: "nopenopenopenopenopenope"))))
        #expect(wrongKey.errorCode?.code == 401)
    }

    @Test func unknownComprehensionRequiredAttributeIsRejectedWith420() throws {
        let unknown = STUNAttributeType(rawValue: 0x0077)
        let (response, _) = try #require(answer(makeAgent(), to: request(extra: [.other(unknown, [1, 2, 3, 4])])))
        #expect(response.errorCode?.code == 420)
        #expect(response.unknownAttributes == [unknown])
    }

    @Test func roleConflictWithLowerTieBreakerIsAnswered487() throws {
        let agent = makeAgent(role: .controlling, tieBreaker: 1000)
        let (response, bytes) = try #require(answer(agent, to: request(extra: [.iceControlling(tieBreaker: 5)])))
        #expect(response.errorCode?.code == 487)
        #expect(STUNMessage.verifyIntegrity(of: bytes, key: .shortTerm(password: Self.local.pwd)) == .valid)
        #expect(agent.role == .controlling)
    }

    @Test func roleConflictWithHigherTieBreakerSwitchesRole() throws {
        let agent = makeAgent(role: .controlling, tieBreaker: 1000)
        let (response, _) = try #require(answer(agent, to: request(extra: [.iceControlling(tieBreaker: 5000)])))
        #expect(response.type == .bindingSuccess)
        #expect(agent.role == .controlled)
        #expect(agent.pollEvent() == .roleChanged(.controlled))
    }

    @Test func bothControlledHigherTieBreakerTakesControl() throws {
        let agent = makeAgent(role: .controlled, tieBreaker: 1000)
        let (response, _) = try #require(answer(agent, to: request(extra: [.iceControlled(tieBreaker: 5)])))
        #expect(response.type == .bindingSuccess)
        #expect(agent.role == .controlling)
    }

    @Test func wildcardSocketAddressResolvesToTheBase() throws {
        let agent = makeAgent()
        agent.handleInput(request(), from: Self.peer, to: STUNAddress(ipv4: 0, 0, 0, 0, port: 5000), now: .zero)
        let transmit = try #require(agent.pollTransmit())
        #expect(transmit.source == Self.base)
    }

    @Test func inputOnAnUnknownBaseIsIgnored() {
        let agent = makeAgent()
        agent.handleInput(request(), from: Self.peer, to: STUNAddress(ipv4: 10, 9, 9, 9, port: 5000), now: .zero)
        #expect(agent.pollTransmit() == nil)
    }
}
