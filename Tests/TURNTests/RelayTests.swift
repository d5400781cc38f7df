import STUN
import Testing
@testable import TURN

let peer = STUNAddress(ipv4: 10, 0, 0, 5, port: 6000)
let samePeerOtherPort = STUNAddress(ipv4: 10, 0, 0, 5, port: 7000)

@Test func sendBeforePermissionQueuesThenUsesSendIndications() {
    let link = Link()
    link.allocate()
    #expect(link.client.send([1, 2, 3], to: peer, now: link.now))
    #expect(link.client.send([4], to: peer, now: link.now))
    link.pump()
    let permissions = link.server.requests(.createPermission)
    #expect(permissions.count == 1)
    #expect(permissions.first?.xorPeerAddress == peer)
    #expect(link.server.sendIndications.map(\.data) == [[1, 2, 3], [4]])
    #expect(link.server.sendIndications.allSatisfy { $0.peer == peer })
    #expect(link.takeEvents() == [.permissionCreated(peer)])
    // A permission covers the IP: another port needs no new request.
    link.client.send([5], to: samePeerOtherPort, now: link.now)
    link.pump()
    #expect(link.server.requests(.createPermission).count == 1)
    #expect(link.server.sendIndications.last?.peer == samePeerOtherPort)
}

@Test func permissionsWantedWhileAllocatingAreRequestedOnceAllocated() {
    let link = Link()
    link.client.createPermission(for: peer, now: link.now)
    link.client.send([9], to: peer, now: link.now)
    link.pump()
    #expect(link.server.requests(.createPermission).count == 1)
    #expect(link.server.sendIndications.map(\.data) == [[9]])
}

@Test func dataIndicationsAreReportedAsPeerData() {
    let link = Link()
    link.allocate()
    link.deliver(link.server.dataIndication(from: peer, [7, 7, 7]))
    #expect(link.takeEvents() == [.data(from: peer, [7, 7, 7])])
}

@Test func permissionFailureDropsQueuedDataAndKeepsTheAllocation() {
    let link = Link()
    link.allocate()
    link.server.errors[.createPermission] = 403
    link.client.send([1], to: peer, now: link.now)
    link.pump()
    #expect(link.takeEvents() == [.permissionFailed(peer, reason: .rejected(method: .createPermission, code: 403, reason: "Test"))])
    #expect(link.server.sendIndications.isEmpty)
    #expect(link.client.isAllocated)
}

@Test func permissionsAreRefreshedWhileUsedAndDroppedWhenIdle() {
    let link = Link()
    link.allocate()
    let idle = STUNAddress(ipv4: 10, 0, 0, 6, port: 1)
    link.client.send([1], to: peer, now: link.now)
    link.client.createPermission(for: idle, now: link.now)
    link.pump()
    #expect(link.server.requests(.createPermission).count == 2)
    #expect(link.takeEvents() == [.permissionCreated(peer), .permissionCreated(idle)])
    link.advance(to: .seconds(100))
    link.client.send([2], to: peer, now: link.now)
    link.advance(to: .seconds(240))
    let requests = link.server.requests(.createPermission)
    #expect(requests.count == 3)
    #expect(requests.last?.xorPeerAddress == peer)
    // Refreshes are silent; the idle peer's permission is gone and must be
    // asked for again.
    #expect(link.takeEvents() == [])
    link.client.send([3], to: idle, now: link.now)
    link.pump()
    #expect(link.server.requests(.createPermission).count == 4)
    // Received data counts as use too.
    link.deliver(link.server.dataIndication(from: peer, [1]))
    link.advance(to: .seconds(480))
    #expect(link.server.requests(.createPermission).filter { $0.xorPeerAddress == peer }.count == 3)
}

@Test func channelBindSwitchesSendsToChannelData() throws {
    let link = Link()
    link.allocate()
    let number = try #require(link.client.bindChannel(to: peer, now: link.now))
    #expect(number == 0x4000)
    // Before the bind completes data goes out as a Send indication.
    link.client.send([1], to: peer, now: link.now)
    #expect(link.server.sendIndications.isEmpty)
    link.pump()
    #expect(link.takeEvents() == [.channelBound(peer, number: 0x4000), .permissionCreated(peer)])
    let bind = try #require(link.server.requests(.channelBind).first)
    #expect(bind.attributes.contains(.channelNumber(0x4000)))
    #expect(bind.xorPeerAddress == peer)
    #expect(link.server.channels[0x4000] == peer)
    // The data waited for the permission, which the bind installed first.
    #expect(link.server.sendIndications.isEmpty)
    #expect(link.server.channelData.map(\.data) == [[1]])
    link.client.send([2, 3], to: peer, now: link.now)
    link.pump()
    #expect(link.server.channelData.last == ChannelData(number: 0x4000, data: [2, 3]))
    // Data back on the channel comes out as the peer's.
    link.deliver(ChannelData(number: 0x4000, data: [9, 8]).encoded(padded: false))
    #expect(link.takeEvents() == [.data(from: peer, [9, 8])])
    // A second peer gets the next number; an unknown number is dropped.
    #expect(link.client.bindChannel(to: samePeerOtherPort, now: link.now) == 0x4001)
    link.deliver(ChannelData(number: 0x4ABC, data: [1]).encoded(padded: false))
    #expect(link.takeEvents().allSatisfy { if case .data = $0 { false } else { true } })
}

@Test func sendsBeforeTheBindCompletesUseSendIndications() {
    let link = Link()
    link.allocate()
    link.client.createPermission(for: peer, now: link.now)
    link.pump()
    link.client.bindChannel(to: peer, now: link.now)
    link.client.send([1], to: peer, now: link.now)
    // The send indication is queued before the ChannelBind reaches the server.
    link.pump()
    #expect(link.server.sendIndications.map(\.data) == [[1]])
    link.client.send([2], to: peer, now: link.now)
    link.pump()
    #expect(link.server.channelData.map(\.data) == [[2]])
}

@Test func channelsAreRefreshedAt540SecondsWhileUsed() {
    let link = Link()
    link.allocate()
    link.client.bindChannel(to: peer, now: link.now)
    link.pump()
    for second in stride(from: 30, through: 1200, by: 30) {
        link.advance(to: .seconds(second))
        link.client.send([1], to: peer, now: link.now)
    }
    link.pump()
    let binds = link.server.requests(.channelBind)
    #expect(binds.count == 3)   // at 0, 540 and 1080 s
    #expect(binds.allSatisfy { $0.attributes.contains(.channelNumber(0x4000)) })
    #expect(link.server.requests(.createPermission).count == 4)   // 240, 480, 780 (540+240), 1020
    #expect(link.server.channelData.count == 40)
}

@Test func idleChannelsLapseAndRebindWithTheSameNumber() {
    let link = Link()
    link.allocate()
    link.client.bindChannel(to: peer, now: link.now)
    link.client.bindChannel(to: samePeerOtherPort, now: link.now)
    link.pump()
    link.advance(to: .seconds(600))
    #expect(link.server.requests(.channelBind).count == 2)
    // The idle permission lapsed too: a send asks for it again and then
    // falls back to a Send indication.
    link.client.send([1], to: peer, now: link.now)
    link.pump()
    #expect(link.server.requests(.createPermission).count == 1)
    #expect(link.server.sendIndications.map(\.data) == [[1]])
    #expect(link.client.bindChannel(to: peer, now: link.now) == 0x4000)
}

@Test func channelBindFailureKeepsSendIndications() {
    let link = Link()
    link.allocate()
    link.server.errors[.channelBind] = 508
    link.client.bindChannel(to: peer, now: link.now)
    link.pump()
    #expect(link.takeEvents() == [.channelBindFailed(peer, reason: .rejected(method: .channelBind, code: 508, reason: "Test"))])
    link.client.send([1], to: peer, now: link.now)
    link.pump()
    #expect(link.server.sendIndications.map(\.data) == [[1]])
}

@Test func channelDataOverTCPIsPaddedAndOverUDPIsNot() {
    for (transport, expected) in [(TURNTransport.tcp, 8), (.udp, 5)] {
        let link = Link(transport)
        link.allocate()
        link.client.bindChannel(to: peer, now: link.now)
        link.pump()
        link.client.send([0xAA], to: peer, now: link.now)
        link.pump()
        #expect(link.server.rawChannelFrames.last == [0x40, 0x00, 0x00, 0x01, 0xAA] + Array(repeating: 0, count: expected - 5))
    }
}

@Test func dataWaitingForAPermissionIsBounded() {
    let link = Link()
    link.allocate()
    link.server.silent = true
    let chunk = [UInt8](repeating: 1, count: 64 * 1024)
    #expect((0..<4).allSatisfy { _ in link.client.send(chunk, to: peer, now: link.now) })
    #expect(!link.client.send(chunk, to: peer, now: link.now))
    #expect(Link().client.send([1], to: peer, now: .zero))   // while allocating the data waits too
}
