import PortMapping
import STUN
import Testing

/// Byte layouts from the RFCs, and decoders that refuse anything else.
@Suite struct PortMappingCodecTests {
    @Test func pcpMapRequestHasTheRFC6887Layout() {
        let request = PCP.mapRequest(clientIP: [192, 168, 1, 20], nonce: Array(1...12), internalPort: 40000, lifetime: 7200)
        #expect(request.count == 60)
        #expect(Array(request[0..<4]) == [2, 1, 0, 0])
        #expect(Array(request[4..<8]) == [0, 0, 0x1c, 0x20])
        #expect(Array(request[8..<24]) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 20])
        #expect(Array(request[24..<36]) == Array(1...12))
        #expect(request[36] == 17)
        #expect(Array(request[40..<44]) == [0x9c, 0x40, 0, 0])
        #expect(Array(request[44..<60]) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0])
    }

    @Test func natPMPRequestsHaveTheRFC6886Layout() {
        #expect(NATPMP.externalAddressRequest() == [0, 0])
        #expect(NATPMP.mapRequest(internalPort: 40000, suggestedExternalPort: 40000, lifetime: 7200)
            == [0, 1, 0, 0, 0x9c, 0x40, 0x9c, 0x40, 0, 0, 0x1c, 0x20])
    }

    @Test func natPMPResponsesMustHaveTheirExactSize() {
        let external: [UInt8] = [0, 128, 0, 0, 0, 0, 0, 1, 203, 0, 113, 7]
        #expect(NATPMP.parse(external) == .externalAddress(result: 0, epoch: 1, ip: [203, 0, 113, 7]))
        #expect(NATPMP.parse(external + [0]) == nil)
        #expect(NATPMP.parse(Array(external.dropLast())) == nil)
        #expect(NATPMP.parse([0, 0] + external.dropFirst(2)) == nil, "a request is not an answer")
        #expect(NATPMP.parse([1] + external.dropFirst()) == nil)
    }

    @Test func everyTruncationOfAnAnswerIsRejectedWithoutCrashing() {
        let pcp = PCP.mapRequest(clientIP: [1, 2, 3, 4], nonce: Array(1...12), internalPort: 1, lifetime: 1)
        var answer = pcp
        answer[1] = 0x81
        #expect(PCP.parse(answer) != nil)
        for length in 0..<answer.count where length != 4 { #expect(PCP.parse(Array(answer.prefix(length))) == nil) }
    }

    @Test func ssdpLocationMustBeAnHTTPURLOnTheGateway() {
        let answer = Array("HTTP/1.1 200 OK\r\nLocation:  http://192.168.1.1:5000/rootDesc.xml \r\n\r\n".utf8)
        #expect(UPnP.parseSearchResponse(answer, gateway: [192, 168, 1, 1])
            == UPnP.Location(host: STUNAddress(ipv4: 192, 168, 1, 1, port: 5000), path: "/rootDesc.xml"))
        #expect(UPnP.parseSearchResponse(answer, gateway: [192, 168, 1, 2]) == nil)
        #expect(UPnP.parseSearchResponse(Array("HTTP/1.1 404 Nope\r\nLocation: http://192.168.1.1/\r\n\r\n".utf8), gateway: [192, 168, 1, 1]) == nil)
    }

    @Test func soapValuesAreEscapedAndFaultCodesRead() {
        let control = UPnP.Control(location: UPnP.Location(host: STUNAddress(ipv4: 192, 168, 1, 1, port: 5000), path: "/ctl"),
                                   serviceType: "urn:schemas-upnp-org:service:WANIPConnection:1")
        let request = String(decoding: UPnP.soapRequest(control, action: "X", arguments: [("A", "<&>")]), as: UTF8.self)
        #expect(request.contains("<A>&lt;&amp;&gt;</A>"))
        #expect(request.contains("SOAPAction: \"urn:schemas-upnp-org:service:WANIPConnection:1#X\""))
        let fault = Array("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 45\r\n\r\n<e:UPnPError><errorCode>718</errorCode></e:x>".utf8)
        #expect(UPnP.parseResponse(fault).map(UPnP.parseSOAP) == .fault(code: 718))
    }
}
