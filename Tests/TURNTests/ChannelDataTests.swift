import STUN
import Testing
@testable import TURN

@Test func channelDataEncodesHeaderAndPadding() {
    let frame = ChannelData(number: 0x4001, data: [1, 2, 3, 4, 5])
    #expect(frame.encoded(padded: false) == [0x40, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5])
    #expect(frame.encoded(padded: true) == [0x40, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5, 0, 0, 0])
    #expect(ChannelData(number: 0x4000, data: [1, 2, 3, 4]).encoded(padded: true).count == 8)
    #expect(ChannelData(number: 0x4000, data: []).encoded(padded: true) == [0x40, 0, 0, 0])
}

@Test func channelDataDecodesWithOrWithoutPadding() {
    let frame = ChannelData(number: 0x4FFF, data: [9, 9, 9])
    #expect(ChannelData.decode(frame.encoded(padded: true)) == frame)
    #expect(ChannelData.decode(frame.encoded(padded: false)) == frame)
}

@Test func channelDataRejectsTruncationAndReservedNumbers() {
    #expect(ChannelData.decode([0x40, 0x00, 0x00, 0x05, 1, 2]) == nil)
    #expect(ChannelData.decode([0x40, 0x00, 0x00]) == nil)
    #expect(ChannelData.decode([0x50, 0x00, 0x00, 0x00]) == nil)
    #expect(ChannelData.decode([0x3F, 0xFF, 0x00, 0x00]) == nil)
    #expect(ChannelData.decode([]) == nil)
}

@Test func streamFramerSplitsSTUNAndPaddedChannelData() throws {
    let server = FakeTURNServer()
    let indication = server.dataIndication(from: STUNAddress(ipv4: 1, 2, 3, 4, port: 5), [1, 2, 3])
    let channel = ChannelData(number: 0x4000, data: [7]).encoded(padded: true)
    var framer = TURNStreamFramer()
    framer.append(channel + indication + channel)
    #expect(framer.next() == .channelData(channel))
    #expect(framer.next() == .stun(indication))
    #expect(framer.next() == .channelData(channel))
    #expect(framer.next() == nil)
    #expect(framer.bufferedCount == 0)
}

@Test func streamFramerReportsCorruption() {
    var framer = TURNStreamFramer()
    framer.append([0xFF, 1, 2, 3])
    #expect(framer.next() == nil)
    #expect(framer.isCorrupt)
    var stun = TURNStreamFramer()
    stun.append([0x00, 0x01, 0x00, 0x00, 0xDE, 0xAD, 0xBE, 0xEF])   // bad magic cookie
    #expect(stun.next() == nil)
    #expect(stun.isCorrupt)
}

/// A realistic server stream: the allocation's answers, Data indications
/// and ChannelData with odd lengths. Split at every byte boundary, and fed
/// byte by byte, it must give the same events as in one piece.
@Test func tcpFramingSurvivesEverySplitPoint() throws {
    let peer = STUNAddress(ipv4: 10, 0, 0, 5, port: 6000)
    // Record the server's replies for one session over TCP.
    let recorder = Link(.tcp)
    recorder.allocate()
    recorder.client.bindChannel(to: peer, now: recorder.now)
    var stream: [UInt8] = []
    while let bytes = recorder.client.pollTransmit() {
        for reply in recorder.server.receive(bytes, stream: true) { stream += reply }
    }
    stream += recorder.server.dataIndication(from: peer, [1, 2, 3, 4, 5])
    stream += ChannelData(number: 0x4000, data: [1, 2, 3]).encoded(padded: true)
    stream += ChannelData(number: 0x4000, data: Array(0..<13)).encoded(padded: true)

    func run(_ chunks: [[UInt8]]) -> [TURNEvent] {
        let link = Link(.tcp)
        link.allocate()
        link.client.bindChannel(to: peer, now: link.now)
        _ = link.client.pollTransmit()   // the ChannelBind; its answer is in `stream`
        for chunk in chunks { link.client.handleInput(chunk, now: .zero) }
        var events: [TURNEvent] = []
        while let event = link.client.pollEvent() { events.append(event) }
        return events
    }
    let whole = run([stream])
    #expect(whole == [
        .channelBound(peer, number: 0x4000), .permissionCreated(peer),
        .data(from: peer, [1, 2, 3, 4, 5]), .data(from: peer, [1, 2, 3]), .data(from: peer, Array(0..<13)),
    ])
    for split in 0...stream.count {
        #expect(run([Array(stream[..<split]), Array(stream[split...])]) == whole, "split at \(split)")
    }
    #expect(run(stream.map { [$0] }) == whole)
}
