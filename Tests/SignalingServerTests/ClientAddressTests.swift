import HTTP1
import Runtime
@testable import SignalingServer
import Testing

private func address(_ forwarded: [String], peer: String, trusted: [String]) -> String {
    let headers = HTTPHeaders(forwarded.map { ("X-Forwarded-For", $0) })
    let request = HTTPRequest(method: "POST", target: "/api/rooms/accept", headers: headers, body: [])
    return ClientAddress.of(request, peer: SocketAddress(ip: peer, port: 40000)!, trustedProxies: trusted)
}

@Test func aTrustedProxysLastForwardedEntryIsTheClient() {
    #expect(address(["203.0.113.9"], peer: "10.0.0.1", trusted: ["10.0.0.1"]) == "203.0.113.9")
    // What the client claimed comes first; what the proxy saw is last.
    #expect(address(["1.2.3.4, 5.6.7.8", "198.51.100.7"], peer: "10.0.0.1", trusted: ["10.0.0.1"]) == "198.51.100.7")
    #expect(address(["1.2.3.4, 2001:db8::5"], peer: "10.0.0.1", trusted: ["10.0.0.1"]) == "2001:db8::/64")
}

@Test func forwardedForFromAnyoneElseOrGarbageIsIgnored() {
    #expect(address(["203.0.113.9"], peer: "192.0.2.1", trusted: ["10.0.0.1"]) == "192.0.2.1")
    #expect(address(["203.0.113.9"], peer: "192.0.2.1", trusted: []) == "192.0.2.1")
    #expect(address(["not an address"], peer: "10.0.0.1", trusted: ["10.0.0.1"]) == "10.0.0.1")
    #expect(address([], peer: "10.0.0.1", trusted: ["10.0.0.1"]) == "10.0.0.1")
}
