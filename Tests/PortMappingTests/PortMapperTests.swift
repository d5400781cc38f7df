import PortMapping
import STUN
import Testing

/// The mapper against in-process gateways that speak each protocol, say
/// nothing, lie, or answer with garbage.
@Suite struct PortMapperTests {
    static let external = STUNAddress(ipv4: 203, 0, 113, 7, port: 61000)

    @Test func pcpIsUsedWhenTheGatewaySpeaksAllThree() {
        var harness = MapperHarness()
        harness.start()
        #expect(harness.mapping == PortMapping(method: .pcp, external: Self.external, lifetime: 7200))
        #expect(harness.mapper.offers.pcp == true)
        // Nothing else asked for a mapping: no NAT-PMP map, no HTTP at all.
        #expect(!harness.gateway.received.contains { if case .http = $0 { true } else { false } })
    }

    @Test func natPMPIsUsedAtOnceWhenTheGatewayAnswersPCPWithUnsupportedVersion() {
        let gateway = FakeGateway()
        gateway.pcp = false
        var harness = MapperHarness(gateway: gateway)
        harness.start()
        #expect(harness.mapping == PortMapping(method: .natPMP, external: Self.external, lifetime: 7200))
        #expect(harness.events.first?.at == harness.now, "no waiting for the probe window")
    }

    @Test func upnpIsUsedWhenOnlySSDPAnswers() {
        let gateway = FakeGateway()
        gateway.pcp = false
        gateway.natPMP = false
        var harness = MapperHarness(gateway: gateway)
        harness.start()
        harness.run(until: harness.now + .seconds(1))
        // The internal port is asked for as the external one.
        #expect(harness.mapping == PortMapping(method: .upnp, external: STUNAddress(ipv4: 203, 0, 113, 7, port: 40000), lifetime: 7200))
        #expect(gateway.mappings[40000] == 7200)
        #expect(harness.mapper.offers.upnp == true)
    }

    @Test func upnpStartsAtOnceWhenPCPAndNATPMPHaveSaidNo() {
        let gateway = FakeGateway()
        gateway.pcp = false
        gateway.natPMP = false
        // Both answer "unsupported" (a version-0 header with result 1, and an error to NAT-PMP).
        gateway.mangle = { answer in answer[0] == 0 ? [0, answer[1] | 0x80, 0, 1, 0, 0, 0, 9] : answer }
        gateway.natPMP = true
        var harness = MapperHarness(gateway: gateway)
        harness.start()
        #expect(harness.mapping?.method == .upnp)
        #expect(harness.events.first?.at == harness.now, "no waiting for the probe window")
    }

    @Test func aGatewayThatNeverAnswersIsGivenUpWithin300Milliseconds() {
        var harness = MapperHarness()
        harness.silent = true
        let started = harness.now
        harness.start()
        harness.run(until: started + .seconds(60))
        #expect(harness.events.count == 1)
        #expect(harness.events.first?.event == .unavailable)
        #expect(harness.events.first.map { $0.at - started } ?? .seconds(60) <= .milliseconds(300))
        #expect(harness.mapper.failure == .noGateway)
        #expect(harness.mapper.pollTimeout() == nil, "nothing keeps running afterwards")
    }

    @Test(arguments: [[UInt8]([192, 168, 0, 1]), [127, 0, 0, 1], [10, 1, 2, 3], [100, 64, 0, 9], [0, 0, 0, 0], [169, 254, 1, 1], [224, 0, 0, 1]])
    func aGatewayReportingANonPublicExternalAddressIsIgnored(_ ip: [UInt8]) {
        let gateway = FakeGateway()
        gateway.externalIP = ip
        var harness = MapperHarness(gateway: gateway)
        harness.start()
        harness.run(until: harness.now + .seconds(10))
        #expect(harness.mapping == nil)
        #expect(harness.events.map(\.event) == [.unavailable])
        #expect(harness.mapper.failure == .unreachableExternalAddress)
        #expect(gateway.mappings.isEmpty, "whatever was mapped on the lie is deleted again")
    }

    @Test func aPCPLieFallsBackToAnHonestUPnPAnswer() {
        let gateway = FakeGateway()
        gateway.natPMP = false
        // PCP says loopback; UPnP (its own answer) is honest.
        gateway.mangle = { answer in
            guard answer.count == 60, answer[0] == 2 else { return answer }
            return Array(answer[0..<56]) + [127, 0, 0, 1]
        }
        var harness = MapperHarness(gateway: gateway)
        harness.start()
        harness.run(until: harness.now + .seconds(1))
        #expect(harness.mapping?.method == .upnp)
        #expect(harness.mapping?.external.ip == [203, 0, 113, 7])
    }

    @Test func answersNotFromTheGatewayOrNotForThisRequestAreIgnored() {
        var harness = MapperHarness()
        harness.silent = true
        harness.start()
        let gateway = FakeGateway()
        var pcpRequest: [UInt8] = []
        for case .datagram(let bytes, _) in harness.gateway.received where bytes.first == 2 { pcpRequest = bytes }
        let good = gateway.udpAnswer(pcpRequest) ?? []
        var otherNonce = good
        otherNonce[24] ^= 1
        var otherPort = good
        otherPort[40] ^= 1
        harness.mapper.handleDatagram(good, from: STUNAddress(ipv4: 192, 168, 1, 66, port: 5351), now: harness.now)
        harness.mapper.handleDatagram(good, from: STUNAddress(ipv4: 192, 168, 1, 1, port: 5352), now: harness.now)
        harness.mapper.handleDatagram(otherNonce, from: FakeGateway.pcpAddress, now: harness.now)
        harness.mapper.handleDatagram(otherPort, from: FakeGateway.pcpAddress, now: harness.now)
        for length in 0..<good.count { harness.mapper.handleDatagram(Array(good.prefix(length)), from: FakeGateway.pcpAddress, now: harness.now) }
        harness.mapper.handleDatagram(good + [UInt8](repeating: 0, count: 1100), from: FakeGateway.pcpAddress, now: harness.now)
        harness.deliver()
        #expect(harness.events.isEmpty)
        harness.mapper.handleDatagram(good, from: FakeGateway.pcpAddress, now: harness.now)
        harness.deliver()
        #expect(harness.mapping?.method == .pcp)
    }

    @Test(arguments: ["http://10.0.0.9:5000/rootDesc.xml", "http://192.168.1.1.evil:80/x", "https://192.168.1.1/x", "http://192.168.1.1:0/",
                      "http://192.168.1.1:5000/a b", "http://user@192.168.1.1/"])
    func anSSDPAnswerPointingAwayFromTheGatewayIsIgnored(_ location: String) {
        let gateway = FakeGateway()
        gateway.pcp = false
        gateway.natPMP = false
        gateway.location = location
        var harness = MapperHarness(gateway: gateway)
        harness.start()
        harness.run(until: harness.now + .seconds(10))
        #expect(!gateway.received.contains { if case .http = $0 { true } else { false } })
        #expect(harness.events.map(\.event) == [.unavailable])
    }

    @Test(arguments: ["", "<root><service><serviceType>urn:schemas-upnp-org:service:WANIPConnection:1</serviceType></service></root>",
                      "<service><serviceType>urn:schemas-upnp-org:service:WANIPConnection:1</serviceType><controlURL>http://10.9.9.9/ctl</controlURL></service>",
                      "<service><serviceType>urn:schemas-upnp-org:service:WANIPConnection:1<", String(repeating: "<service>", count: 20000)])
    func aBrokenOrHostileDescriptionGivesNoMapping(_ description: String) {
        let gateway = FakeGateway()
        gateway.pcp = false
        gateway.natPMP = false
        gateway.description = description
        var harness = MapperHarness(gateway: gateway)
        harness.start()
        harness.run(until: harness.now + .seconds(10))
        #expect(harness.events.map(\.event) == [.unavailable])
        #expect(harness.mapper.failure == .refused)
    }

    @Test func aUPnPConflictTriesAnotherExternalPort() {
        let gateway = FakeGateway()
        gateway.pcp = false
        gateway.natPMP = false
        gateway.addFaults = [718]
        var harness = MapperHarness(gateway: gateway)
        harness.start()
        harness.run(until: harness.now + .seconds(1))
        let port = harness.mapping?.external.port ?? 0
        #expect(port >= 49152 && port != 40000)
        #expect(gateway.mappings[port] == 7200)
    }

    @Test(arguments: PortMapping.Method.allCases)
    func theMappingIsRefreshedAtHalfItsLifetimeAndDeletedOnRelease(_ method: PortMapping.Method) {
        let gateway = FakeGateway()
        gateway.pcp = method == .pcp
        gateway.natPMP = method != .upnp
        gateway.lifetime = 120
        var config = PortMapperConfig()
        config.lifetime = 120
        var harness = MapperHarness(gateway: gateway, config: config)
        harness.start()
        harness.run(until: harness.now + .seconds(1))
        #expect(harness.mapping?.method == method)
        let mappedAt = harness.events.first?.at ?? harness.now
        let before = gateway.received.count
        harness.run(until: mappedAt + .seconds(59))
        #expect(gateway.received.count == before, "nothing before half the lifetime")
        harness.run(until: mappedAt + .seconds(61))
        #expect(gateway.received.count > before, "a refresh at half the lifetime")
        #expect(harness.events.count == 1, "an unchanged refresh reports nothing")
        #expect(!gateway.mappings.isEmpty)
        harness.mapper.release(now: harness.now)
        harness.deliver()
        #expect(gateway.mappings.isEmpty, "released: the gateway holds no mapping")
        #expect(harness.mapper.pollTimeout() == nil)
    }

    @Test func aRefreshNobodyAnswersLosesTheMapping() {
        var config = PortMapperConfig()
        config.lifetime = 60
        var harness = MapperHarness(config: config)
        harness.gateway.lifetime = 60
        harness.start()
        let mapping = harness.mapping
        harness.silent = true
        harness.run(until: harness.now + .seconds(120))
        #expect(harness.events.last?.event == mapping.map { .lost($0) })
    }

    @Test func methodsCanBeTurnedOff() {
        var config = PortMapperConfig()
        config.methods = [.upnp]
        var harness = MapperHarness(config: config)
        harness.start()
        harness.run(until: harness.now + .seconds(1))
        #expect(harness.mapping?.method == .upnp)
        #expect(!harness.gateway.received.contains { if case .datagram(_, let to) = $0 { to.port == 5351 } else { false } })
    }
}
