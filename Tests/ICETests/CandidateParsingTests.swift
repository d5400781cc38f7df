import ICE
import STUN
import Testing
import TestSupport

/// `a=candidate` strings as real stacks write them.
@Suite(.computeThread) struct CandidateParsingTests {
    static let realWorld: [String] = [
        // Chrome
        "candidate:842163049 1 udp 1677729535 203.0.113.5 46154 typ srflx raddr 10.0.0.2 rport 46154 generation 0 ufrag abcd network-cost 999",
        "candidate:1467250027 1 udp 2122260223 192.168.0.196 46243 typ host generation 0 ufrag PEkE network-id 1 network-cost 10",
        "candidate:3098175849 1 udp 2113937151 4e5e7e6b-7d1c-4b1c-9d9b-1f0b5c0a1e2f.local 58321 typ host generation 0 ufrag 6dKR network-cost 999",
        "candidate:1853887674 1 tcp 1518280447 192.168.0.196 9 typ host tcptype active generation 0 ufrag PEkE network-id 1",
        "candidate:2999745851 1 udp 2122129151 2001:db8:85a3::8a2e:370:7334 52012 typ host generation 0 ufrag EsAw network-id 2",
        "candidate:448279201 1 udp 1685921535 198.51.100.23 61952 typ srflx raddr 0.0.0.0 rport 0 generation 0 ufrag 6dKR network-cost 999",
        "candidate:3453013305 1 udp 41885439 198.51.100.99 50012 typ relay raddr 203.0.113.5 rport 46154 generation 0 ufrag abcd network-id 1 network-cost 10",
        // Firefox
        "candidate:0 1 UDP 2122252543 192.168.1.5 54321 typ host",
        "candidate:1 1 UDP 1686052863 203.0.113.7 54321 typ srflx raddr 192.168.1.5 rport 54321",
        "candidate:2 1 TCP 2105524479 192.168.1.5 9 typ host tcptype active",
        "candidate:3 1 UDP 92217087 198.51.100.9 61234 typ relay raddr 203.0.113.7 rport 54321",
        "candidate:4 1 UDP 2122187007 fe80::1c2b:3dff:fe4e:5f60 49152 typ host",
        // aiortc / aioice
        "candidate:e1a4ac7a0d21b5f1b8a7a6c2c0a4d3a2 1 udp 2130706431 192.168.1.20 52345 typ host",
        "candidate:b3fcd6a4c6b8b8f3f8b1c1d0a2e3f4a5 1 udp 1694498815 203.0.113.9 52345 typ srflx raddr 192.168.1.20 rport 52345",
        "candidate:7a0d21b5 1 tcp 1694498815 203.0.113.9 443 typ host tcptype passive",
        // Pion
        "candidate:1966762133 1 udp 2130706431 ::1 56789 typ host",
        "candidate:233762139 1 udp 2130706431 10.0.0.7 47839 typ host ufrag kPcTWArEobbtVUHR",
    ]

    @Test(arguments: realWorld)
    func realWorldCandidatesRoundTrip(_ text: String) throws {
        let candidate = try #require(ICECandidate(sdpAttribute: text))
        #expect(candidate.sdpAttribute == text)
        #expect(ICECandidate(sdpAttribute: "a=" + text) == candidate)
        #expect(ICECandidate(sdpAttribute: String(text.dropFirst("candidate:".count))) == candidate)
        #expect(ICECandidate(sdpAttribute: "a=" + text + "\r\n") == candidate)
    }

    @Test func chromeSrflxFieldsAreParsed() throws {
        let c = try #require(ICECandidate(sdpAttribute: Self.realWorld[0]))
        #expect(c.foundation == "842163049")
        #expect(c.component == 1 && c.isUDP && c.priority == 1_677_729_535)
        #expect(c.type == .srflx)
        #expect(c.address == STUNAddress(ipv4: 203, 0, 113, 5, port: 46154))
        #expect(c.relatedAddress == "10.0.0.2" && c.relatedPort == 46154)
        #expect(c.generation == 0 && c.ufrag == "abcd" && c.networkCost == 999)
    }

    @Test func ipv6AndMDNSAndTCPAreRecognised() throws {
        let v6 = try #require(ICECandidate(sdpAttribute: Self.realWorld[4]))
        #expect(v6.address?.family == .ipv6)
        #expect(v6.address?.ipDescription == "2001:db8:85a3::8a2e:370:7334")
        let mdns = try #require(ICECandidate(sdpAttribute: Self.realWorld[2]))
        #expect(mdns.isMDNS && mdns.address == nil)
        let tcp = try #require(ICECandidate(sdpAttribute: Self.realWorld[3]))
        #expect(!tcp.isUDP && tcp.tcpType == "active")
    }

    @Test(arguments: [
        "", "candidate:", "a=candidate:", "candidate:1 1 udp", "candidate:1 1 udp 100 1.2.3.4 5 typ",
        "candidate:1 0 udp 100 1.2.3.4 5 typ host", "candidate:1 257 udp 100 1.2.3.4 5 typ host",
        "candidate:1 1 udp 4294967296 1.2.3.4 5 typ host", "candidate:1 1 udp -1 1.2.3.4 5 typ host",
        "candidate:1 1 udp 100 1.2.3.4 65536 typ host", "candidate:1 1 udp 100 1.2.3.4 5 type host",
        "candidate:1 1 udp 100 1.2.3.4 5 typ foo", "candidate:1 1 udp 100 1.2.3.4 5 typ host generation",
        "candidate:1 1 udp 100 1.2.3.4 5 typ srflx raddr 1.2.3.4 rport x", "candidate:f@o 1 udp 100 1.2.3.4 5 typ host",
        "candidate:1 1 udp +100 1.2.3.4 5 typ host",
    ])
    func malformedCandidatesAreRejected(_ text: String) {
        #expect(ICECandidate(sdpAttribute: text) == nil)
    }

    @Test func hostnamesThatAreNotIPLiteralsHaveNoAddress() throws {
        let c = try #require(ICECandidate(sdpAttribute: "candidate:1 1 udp 100 example.com 5 typ host"))
        #expect(c.address == nil)
        for bad in ["1.2.3", "1.2.3.4.5", "256.1.1.1", "1::2::3", "1:2:3:4:5:6:7:8:9", ":::", "12345::", "01.2.3.4x"] {
            #expect(ICECandidate(sdpAttribute: "candidate:1 1 udp 100 \(bad) 5 typ host")?.address == nil, "\(bad)")
        }
        let mapped = try #require(ICECandidate(sdpAttribute: "candidate:1 1 udp 100 ::ffff:192.0.2.1 5 typ host"))
        #expect(mapped.address?.ip == [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 192, 0, 2, 1])
        let zoned = try #require(ICECandidate(sdpAttribute: "candidate:1 1 udp 100 fe80::1%en0 5 typ host"))
        #expect(zoned.address?.ipDescription == "fe80::1")
    }

    /// Thousands of random, truncated and spliced strings: never a crash,
    /// and whatever parses prints to a string that parses to the same.
    @Test func fuzzedCandidateStringsNeverCrash() {
        var rng = SeededRandom(seed: 77)
        let words = ["candidate:", "a=", "1", "udp", "tcp", "typ", "host", "srflx", "relay", "prflx", "raddr", "rport",
                     "generation", "0", "4294967295", "1.2.3.4", "::", "fe80::1", "x.local", " ", "  ", "\t", "ufrag", "%", ":"]
        var inputs: [String] = []
        for text in Self.realWorld {
            for cut in 0...text.count { inputs.append(String(text.prefix(cut))) }
        }
        for _ in 0..<4000 {
            let count = Int(rng.next() % 16)
            inputs.append((0..<count).map { _ in words[Int(rng.next() % UInt64(words.count))] }.joined(separator: " "))
            let bytes = (0..<Int(rng.next() % 80)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            inputs.append(String(decoding: bytes, as: UTF8.self))
        }
        for input in inputs {
            guard let candidate = ICECandidate(sdpAttribute: input) else { continue }
            #expect(ICECandidate(sdpAttribute: candidate.sdpAttribute) == candidate, "\(input)")
        }
    }
}
