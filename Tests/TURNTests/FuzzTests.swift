import TestSupport
import STUN
import Testing
@testable import TURN

/// Valid frames a server could send, to mutate.
private func corpus(_ server: FakeTURNServer) -> [[UInt8]] {
    let peer = STUNAddress(ipv4: 10, 0, 0, 5, port: 6000)
    var frames: [[UInt8]] = []
    let replay = Link()
    while let bytes = replay.client.pollTransmit() { frames += replay.server.receive(bytes, stream: false) }
    frames.append(server.dataIndication(from: peer, [1, 2, 3]))
    frames.append(ChannelData(number: 0x4000, data: [1, 2, 3, 4, 5]).encoded(padded: true))
    frames.append(ChannelData(number: 0x4000, data: []).encoded(padded: false))
    return frames
}

@Test(arguments: [TURNTransport.udp, .tcp])
func randomAndTruncatedInputNeverCrashes(transport: TURNTransport) {
    var random = SeededRandom(seed: transport == .udp ? 11 : 12)
    let frames = corpus(FakeTURNServer())
    for round in 0..<3000 {
        let link = Link(transport, seed: UInt64(round))
        if round % 2 == 0 {
            link.allocate()
            link.client.bindChannel(to: STUNAddress(ipv4: 10, 0, 0, 5, port: 6000), now: link.now)
            link.pump()
        }
        var input: [UInt8]
        switch round % 4 {
        case 0:
            input = (0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        case 1:
            let frame = frames[Int.random(in: 0..<frames.count, using: &random)]
            input = Array(frame.prefix(Int.random(in: 0...frame.count, using: &random)))
        default:
            input = frames[Int.random(in: 0..<frames.count, using: &random)]
            for _ in 0..<Int.random(in: 1...4, using: &random) where !input.isEmpty {
                input[Int.random(in: 0..<input.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
        }
        link.client.handleInput(input, now: link.now)
        link.client.handleInput(input.reversed(), now: link.now)
        link.pump()
        link.advance(to: .seconds(100))
    }
}

@Test func garbageOnTheTCPStreamEndsTheAllocation() {
    let link = Link(.tcp)
    link.allocate()
    link.deliver([0xC0, 0x00, 0x00, 0x00])
    #expect(link.takeEvents() == [.failed(.garbage)])
}

@Test func garbageOverUDPIsIgnored() {
    let link = Link(.udp)
    link.allocate()
    link.deliver([0xC0, 0x00, 0x00, 0x00])
    link.deliver([0x00, 0x01, 0x00])
    #expect(link.takeEvents() == [])
    #expect(link.client.isAllocated)
}
