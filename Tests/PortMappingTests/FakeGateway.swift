import HTTP1
import PortMapping
import STUN
import TestSupport
import Wire

/// An in-process gateway on 192.168.1.1 that answers a `PortMapper`'s
/// transmits the way a router would (PCP, NAT-PMP, SSDP, the IGD
/// description and SOAP), or in whatever broken or hostile way a test sets.
final class FakeGateway {
    static let ip: [UInt8] = [192, 168, 1, 1]
    static let client = STUNAddress(ipv4: 192, 168, 1, 20, port: 40000)
    static let pcpAddress = STUNAddress(ipv4: 192, 168, 1, 1, port: 5351)
    static let ssdpAddress = STUNAddress(ipv4: 192, 168, 1, 1, port: 1900)

    var pcp = true
    var natPMP = true
    var upnp = true
    var externalIP: [UInt8] = [203, 0, 113, 7]
    var externalPort: UInt16 = 61000
    var lifetime: UInt32 = 7200
    /// Replaces a well-formed answer's bytes (malformed or hostile answers).
    var mangle: ((_ answer: [UInt8]) -> [UInt8])?
    var description: String?
    var location = "http://192.168.1.1:5000/rootDesc.xml"
    /// UPnP error codes AddPortMapping answers with, first to last.
    var addFaults: [Int] = []
    /// Everything the mapper sent, in order.
    var received: [PortMapperTransmit] = []
    var mappings: [UInt16: UInt32] = [:]

    enum Answer {
        case datagram([UInt8], from: STUNAddress)
        case http(id: Int, [UInt8]?)
    }

    func answers(to transmit: PortMapperTransmit) -> [Answer] {
        received.append(transmit)
        switch transmit {
        case .datagram(let bytes, let to) where to == Self.pcpAddress:
            guard let answer = udpAnswer(bytes) else { return [] }
            return [.datagram(mangle?(answer) ?? answer, from: Self.pcpAddress)]
        case .datagram(_, let to) where to == Self.ssdpAddress:
            guard upnp else { return [] }
            let answer = Array("HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=120\r\nST: urn:schemas-upnp-org:device:InternetGatewayDevice:1\r\nLOCATION: \(location)\r\n\r\n".utf8)
            return [.datagram(answer, from: Self.ssdpAddress)]
        case .http(let id, _, let request):
            return [.http(id: id, httpAnswer(request))]
        default:
            return []
        }
    }

    func udpAnswer(_ bytes: [UInt8]) -> [UInt8]? {
        var reader = ByteReader(bytes)
        guard let version = reader.readU8(), let opcode = reader.readU8() else { return nil }
        if version == 2 {
            guard pcp else { return natPMP ? [0, 0x80 | opcode, 0, 1, 0, 0, 0, 9] : nil }
            guard bytes.count == 60, reader.skip(2), let requested = reader.readU32(), reader.skip(16),
                  let nonce = reader.readBytes(12), reader.skip(4), let internalPort = reader.readU16() else { return nil }
            var writer = ByteWriter()
            writer.write([2, 0x81, 0, 0])
            let granted = requested == 0 ? 0 : lifetime
            if requested == 0 { mappings[internalPort] = nil } else { mappings[internalPort] = granted }
            writer.writeU32(granted)
            writer.writeU32(1234)
            writer.write([UInt8](repeating: 0, count: 12))
            writer.write(nonce)
            writer.write([17, 0, 0, 0])
            writer.writeU16(internalPort)
            writer.writeU16(externalPort)
            writer.write([UInt8](repeating: 0, count: 10) + [0xff, 0xff] + externalIP)
            return writer.bytes
        }
        guard version == 0, natPMP else { return nil }
        var writer = ByteWriter()
        if opcode == 0 {
            writer.write([0, 128, 0, 0])
            writer.writeU32(1234)
            writer.write(externalIP)
            return writer.bytes
        }
        guard opcode == 1, reader.skip(2), let internalPort = reader.readU16(), reader.skip(2), let requested = reader.readU32() else { return nil }
        if requested == 0 { mappings[internalPort] = nil } else { mappings[internalPort] = lifetime }
        writer.write([0, 129, 0, 0])
        writer.writeU32(1234)
        writer.writeU16(internalPort)
        writer.writeU16(requested == 0 ? 0 : externalPort)
        writer.writeU32(requested == 0 ? 0 : lifetime)
        return writer.bytes
    }

    static let igdDescription = """
    <?xml version="1.0"?>
    <root xmlns="urn:schemas-upnp-org:device-1-0"><device><deviceType>urn:schemas-upnp-org:device:InternetGatewayDevice:1</deviceType>
    <serviceList><service><serviceType>urn:schemas-upnp-org:service:Layer3Forwarding:1</serviceType><controlURL>/ctl/L3F</controlURL></service></serviceList>
    <deviceList><device><deviceList><device><serviceList><service>
    <serviceType>urn:schemas-upnp-org:service:WANIPConnection:1</serviceType>
    <serviceId>urn:upnp-org:serviceId:WANIPConn1</serviceId>
    <controlURL>/ctl/IPConn</controlURL><eventSubURL>/evt/IPConn</eventSubURL><SCPDURL>/WANIPCn.xml</SCPDURL>
    </service></serviceList></device></deviceList></device></deviceList></device></root>
    """

    func httpAnswer(_ request: [UInt8]) -> [UInt8]? {
        let text = String(decoding: request, as: UTF8.self)
        if text.hasPrefix("GET /rootDesc.xml ") { return reply(200, description ?? Self.igdDescription) }
        guard text.hasPrefix("POST /ctl/IPConn ") else { return reply(404, "") }
        if text.contains("#AddPortMapping") {
            if !addFaults.isEmpty { return fault(addFaults.removeFirst()) }
            if let port = value("NewExternalPort", in: text), let lease = value("NewLeaseDuration", in: text) {
                mappings[port] = UInt32(lease)
                externalPort = port
            }
            return reply(200, envelope("<u:AddPortMappingResponse xmlns:u=\"urn:schemas-upnp-org:service:WANIPConnection:1\"/>"))
        }
        if text.contains("#DeletePortMapping") {
            if let port = value("NewExternalPort", in: text) { mappings[port] = nil }
            return reply(200, envelope(""))
        }
        if text.contains("#GetExternalIPAddress") {
            let ip = externalIP.map(String.init).joined(separator: ".")
            return reply(200, envelope("<u:GetExternalIPAddressResponse xmlns:u=\"urn:schemas-upnp-org:service:WANIPConnection:1\"><NewExternalIPAddress>\(ip)</NewExternalIPAddress></u:GetExternalIPAddressResponse>"))
        }
        return fault(401)
    }

    func value(_ name: String, in text: String) -> UInt16? {
        guard let start = text.firstRange(of: "<\(name)>"), let end = text[start.upperBound...].firstRange(of: "</") else { return nil }
        return UInt16(text[start.upperBound..<end.lowerBound])
    }

    func envelope(_ body: String) -> String {
        "<?xml version=\"1.0\"?><s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body>\(body)</s:Body></s:Envelope>"
    }

    func fault(_ code: Int) -> [UInt8] {
        reply(500, envelope("<s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail><UPnPError xmlns=\"urn:schemas-upnp-org:control-1-0\"><errorCode>\(code)</errorCode><errorDescription>x</errorDescription></UPnPError></detail></s:Fault>"))
    }

    func reply(_ status: Int, _ body: String) -> [UInt8] {
        let bytes = mangle.map { $0(Array(body.utf8)) } ?? Array(body.utf8)
        return Array("HTTP/1.1 \(status) X\r\nContent-Type: text/xml\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n".utf8) + bytes
    }
}

/// A mapper wired to a fake gateway on a manual clock; the network takes no
/// time, so every moment in a test is one the mapper chose.
struct MapperHarness {
    let mapper: PortMapper
    let gateway: FakeGateway
    var now: Duration = .seconds(1000)
    var events: [(at: Duration, event: PortMapperEvent)] = []
    /// Drops everything the mapper sends (a gateway that never answers).
    var silent = false

    init(gateway: FakeGateway = FakeGateway(), config: PortMapperConfig = PortMapperConfig()) {
        self.gateway = gateway
        mapper = PortMapper(gateway: FakeGateway.ip, client: FakeGateway.client, config: config, random: SeededRandom(seed: 7))
    }

    mutating func start() {
        mapper.start(now: now)
        deliver()
    }

    /// Hands every transmit to the gateway and its answers back, repeatedly.
    mutating func deliver() {
        while let transmit = mapper.pollTransmit() {
            if silent { gateway.received.append(transmit); continue }
            for answer in gateway.answers(to: transmit) {
                switch answer {
                case .datagram(let bytes, let from): mapper.handleDatagram(bytes, from: from, now: now)
                case .http(let id, let bytes): mapper.handleHTTPResponse(bytes, id: id, now: now)
                }
            }
        }
        while let event = mapper.pollEvent() { events.append((now, event)) }
    }

    /// Runs timers until `limit` or until there are none.
    mutating func run(until limit: Duration) {
        while let due = mapper.pollTimeout(), due <= limit {
            now = max(now, due)
            mapper.handleTimeout(now: now)
            deliver()
        }
        now = max(now, limit)
    }

    var mapping: PortMapping? {
        for (_, event) in events.reversed() { if case .mapped(let mapping) = event { return mapping } }
        return nil
    }
}
