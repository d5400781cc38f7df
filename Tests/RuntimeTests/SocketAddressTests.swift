import Testing
@testable import Runtime

@Suite struct SocketAddressTests {
    @Test func parsesIPv4WithPort() throws {
        let address = try #require(SocketAddress("192.0.2.1:3478"))
        #expect(address.family == .ipv4)
        #expect(address.ip == "192.0.2.1")
        #expect(address.port == 3478)
        #expect(address.description == "192.0.2.1:3478")
        #expect(address.ipBytes == [192, 0, 2, 1])
    }

    @Test func parsesBracketedIPv6WithPort() throws {
        let address = try #require(SocketAddress("[2001:db8::1]:443"))
        #expect(address.family == .ipv6)
        #expect(address.ip == "2001:db8::1")
        #expect(address.port == 443)
        #expect(address.description == "[2001:db8::1]:443")
        #expect(address.ipBytes.count == 16)
        #expect(SocketAddress("[::1]:5")?.isLoopback == true)
    }

    @Test func rejectsMalformedText() {
        for text in ["", "1.2.3.4", "1.2.3.4:", "1.2.3.4:70000", "::1:5", "[::1]5", "[::1", "host:80",
                     "1.2.3.4.5:1", "[1.2.3.4]:x", "999.1.1.1:1"] {
            #expect(SocketAddress(text) == nil, "\(text)")
        }
    }

    @Test func ipv4MappedIPv6IsNormalisedToIPv4() throws {
        let mapped = try #require(SocketAddress(ip: "::ffff:10.1.2.3", port: 9))
        #expect(mapped.family == .ipv4)
        #expect(mapped == SocketAddress(ip: "10.1.2.3", port: 9))
    }

    @Test func roundTripsThroughSockaddrStorage() throws {
        for text in ["127.0.0.1:1", "[::1]:65535", "[fe80::1%1]:7", "0.0.0.0:0"] {
            let address = try #require(SocketAddress(text))
            let back = SocketAddress(storage: address.sockaddrStorage(asIPv6: false))
            #expect(back == address, "\(text)")
        }
        // An IPv4 address passed to a dual-stack socket comes back as IPv4.
        let v4 = try #require(SocketAddress("198.51.100.7:80"))
        #expect(SocketAddress(storage: v4.sockaddrStorage(asIPv6: true)) == v4)
    }

    @Test func buildsFromRawBytes() {
        #expect(SocketAddress(ipBytes: [10, 0, 0, 1], port: 1) == SocketAddress("10.0.0.1:1"))
        #expect(SocketAddress(ipBytes: [UInt8](repeating: 0, count: 15) + [1], port: 2) == SocketAddress("[::1]:2"))
        #expect(SocketAddress(ipBytes: [1, 2, 3], port: 1) == nil)
    }

    @Test func resolverReturnsNumericAddressesWithoutLookup() throws {
        #expect(try Resolver.resolve(host: "127.0.0.1", port: 80) == [SocketAddress("127.0.0.1:80")])
        #expect(try Resolver.resolve(host: "[::1]", port: 80) == [SocketAddress("[::1]:80")])
        let local = try Resolver.resolve(host: "localhost", port: 8)
        #expect(!local.isEmpty && local.allSatisfy { $0.isLoopback && $0.port == 8 })
    }

    @Test func resolverFailureIsAClearError() {
        #expect {
            try Resolver.resolve(host: "no-such-host.invalid", port: 1)
        } throws: { error in
            guard let error = error as? RuntimeError else { return false }
            return error.kind == .resolve && error.description.hasPrefix("resolve no-such-host.invalid: ")
        }
    }
}

@Suite struct SocketAddressFuzzTests {
    @Test func randomTextNeverCrashesAndParsedAddressesRoundTrip() {
        let alphabet = Array("0123456789abcdefABCDEF:.[]%-x ".unicodeScalars)
        var state: UInt64 = 0x1234_5678_9ABC_DEF1
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        for _ in 0..<20_000 {
            let length = Int(next() % 24)
            var text = ""
            for _ in 0..<length { text.unicodeScalars.append(alphabet[Int(next() % UInt64(alphabet.count))]) }
            if let address = SocketAddress(text) {
                #expect(SocketAddress(address.description) == address, "\(text)")
            }
        }
        // Structured near-misses too: truncations of valid addresses.
        for valid in ["192.168.100.200:65535", "[2001:db8:85a3::8a2e:370:7334]:443", "[::ffff:1.2.3.4]:1"] {
            for end in 0...valid.count {
                if let address = SocketAddress(String(valid.prefix(end))) {
                    #expect(SocketAddress(address.description) == address)
                }
            }
        }
    }
}
