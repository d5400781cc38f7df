import Testing
import DTLS

@Suite struct ThroughputTests {
    /// Full-size records one way through encrypt → datagram → decrypt. Prints
    /// MB/s (a debug build; release is several times faster) for the record;
    /// the pass/fail is that every byte arrives, never the time it took.
    @Test func fullSizeRecordsStreamQuickly() throws {
        let pair = try EndpointPair()
        pair.settle()
        let payload = [UInt8](repeating: 0x5A, count: pair.client.maxPlaintextSize)
        let records = 20_000
        let clock = ContinuousClock()
        let start = clock.now
        var received = 0
        for _ in 0..<records {
            try pair.client.send(payload)
            while let d = pair.client.pollTransmit() { pair.server.handleInput(datagram: d, now: pair.now) }
            while let e = pair.server.pollEvent() { if case .data(let d) = e { received += d.count } }
        }
        let seconds = Double((clock.now - start).components.attoseconds) / 1e18 + Double((clock.now - start).components.seconds)
        let mbps = Double(received) / seconds / 1e6
        print("DTLS one-way throughput: \(Int(mbps)) MB/s (\(records) records of \(payload.count) bytes)")
        #expect(received == records * payload.count)
    }
}
