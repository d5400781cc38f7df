import HTTP1
import STUN

/// UPnP Internet Gateway Device messages (UPnP IGD:1/2): SSDP discovery
/// (UPnP Device Architecture 1.1 §1.3), the device description, and the
/// WANIPConnection SOAP actions AddPortMapping, DeletePortMapping and
/// GetExternalIPAddress. Everything a gateway answers is bounded and must
/// point back at the gateway itself: a LAN host answering SSDP cannot send
/// chatcli's requests anywhere else.
public enum UPnP {
    public static let ssdpPort: UInt16 = 1900
    /// The most an SSDP answer, description or SOAP answer may hold.
    public static let maxDocumentSize = 64 * 1024
    static let searchTarget = "urn:schemas-upnp-org:device:InternetGatewayDevice:1"
    /// Services with the port-mapping actions, best first.
    static let serviceTypes = [
        "urn:schemas-upnp-org:service:WANIPConnection:2",
        "urn:schemas-upnp-org:service:WANIPConnection:1",
        "urn:schemas-upnp-org:service:WANPPPConnection:1",
    ]

    /// An M-SEARCH, sent unicast to the gateway's SSDP port.
    public static func search(host: String) -> [UInt8] {
        Array(("M-SEARCH * HTTP/1.1\r\nHOST: \(host):1900\r\nMAN: \"ssdp:discover\"\r\nMX: 1\r\nST: \(searchTarget)\r\n\r\n").utf8)
    }

    /// Where a device description lives: `http://IP:port/path` on the gateway.
    public struct Location: Sendable, Equatable {
        public var host: STUNAddress
        public var path: String

        public init(host: STUNAddress, path: String) {
            self.host = host
            self.path = path
        }
    }

    /// The `LOCATION` of an SSDP `200 OK`, if it names an `http://` URL on
    /// `gateway`; nil for anything else.
    public static func parseSearchResponse(_ bytes: [UInt8], gateway: [UInt8]) -> Location? {
        guard bytes.count <= 2048, bytes.starts(with: Array("HTTP/1.1 200".utf8)) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "location" else { continue }
            let value = line[line.index(after: colon)...].trimmingSpaces
            return url(String(value), on: gateway)
        }
        return nil
    }

    /// An absolute `http://IPv4[:port]/path` URL on `gateway`, or a path
    /// relative to `base`.
    static func url(_ text: String, on gateway: [UInt8], base: Location? = nil) -> Location? {
        if text.hasPrefix("/"), let base {
            return text.utf8.count <= 512 && text.allSatisfy(\.isPathCharacter) ? Location(host: base.host, path: text) : nil
        }
        guard text.hasPrefix("http://"), text.utf8.count <= 512 else { return nil }
        let rest = text.dropFirst(7)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let ip = ipv4(parts[0]), ip == gateway else { return nil }
        let port: UInt16 = parts.count == 2 ? (UInt16(parts[1]).flatMap { $0 == 0 ? nil : $0 } ?? 0) : 80
        guard port != 0, path.allSatisfy(\.isPathCharacter), let host = STUNAddress(ip: ip, port: port) else { return nil }
        return Location(host: host, path: path.isEmpty ? "/" : String(path))
    }

    static func ipv4(_ text: Substring) -> [UInt8]? {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return nil }
        let bytes = octets.compactMap { $0.count <= 3 ? UInt8($0) : nil }
        return bytes.count == 4 ? bytes : nil
    }

    /// A GET of the device description.
    public static func descriptionRequest(_ location: Location) -> [UInt8] {
        var headers = HTTPHeaders()
        headers.add("Connection", "close")
        return HTTPRequest(method: "GET", target: location.path, headers: headers).serialized(host: hostHeader(location.host))
    }

    /// The control point of the best port-mapping service in a description.
    public struct Control: Sendable, Equatable {
        public var location: Location
        public var serviceType: String

        public init(location: Location, serviceType: String) {
            self.location = location
            self.serviceType = serviceType
        }
    }

    public static func parseDescription(_ body: [UInt8], gateway: [UInt8], base: Location) -> Control? {
        guard body.count <= maxDocumentSize else { return nil }
        var best: (rank: Int, control: Control)?
        for service in XMLScan.elements("service", in: body[...], limit: 64) {
            guard let type = XMLScan.text("serviceType", in: service), let rank = serviceTypes.firstIndex(of: type),
                  let controlURL = XMLScan.text("controlURL", in: service),
                  let location = url(controlURL, on: gateway, base: base)
            else { continue }
            if best.map({ rank < $0.rank }) ?? true { best = (rank, Control(location: location, serviceType: type)) }
        }
        return best?.control
    }

    /// A SOAP action request (`arguments` in order, values escaped).
    public static func soapRequest(_ control: Control, action: String, arguments: [(String, String)]) -> [UInt8] {
        var body = "<?xml version=\"1.0\"?>\r\n<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\" "
        body += "s:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\"><s:Body>"
        body += "<u:\(action) xmlns:u=\"\(control.serviceType)\">"
        for (name, value) in arguments { body += "<\(name)>\(XMLScan.escape(value))</\(name)>" }
        body += "</u:\(action)></s:Body></s:Envelope>\r\n"
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/xml; charset=\"utf-8\"")
        headers.add("SOAPAction", "\"\(control.serviceType)#\(action)\"")
        headers.add("Connection", "close")
        return HTTPRequest(method: "POST", target: control.location.path, headers: headers, body: Array(body.utf8))
            .serialized(host: hostHeader(control.location.host))
    }

    public static func addPortMapping(_ control: Control, externalPort: UInt16, internalPort: UInt16,
                                      internalClient: String, lease: UInt32) -> [UInt8] {
        soapRequest(control, action: "AddPortMapping", arguments: [
            ("NewRemoteHost", ""), ("NewExternalPort", String(externalPort)), ("NewProtocol", "UDP"),
            ("NewInternalPort", String(internalPort)), ("NewInternalClient", internalClient), ("NewEnabled", "1"),
            ("NewPortMappingDescription", "chatcli"), ("NewLeaseDuration", String(lease)),
        ])
    }

    public static func deletePortMapping(_ control: Control, externalPort: UInt16) -> [UInt8] {
        soapRequest(control, action: "DeletePortMapping", arguments: [
            ("NewRemoteHost", ""), ("NewExternalPort", String(externalPort)), ("NewProtocol", "UDP"),
        ])
    }

    public static func getExternalIPAddress(_ control: Control) -> [UInt8] {
        soapRequest(control, action: "GetExternalIPAddress", arguments: [])
    }

    /// A SOAP answer: success with its body, or the UPnP error code of a fault.
    public enum SOAPAnswer: Sendable, Equatable {
        case success(externalIP: [UInt8]?)
        case fault(code: Int?)
    }

    /// A whole HTTP response (read until the gateway closed), or nil if it
    /// is not one.
    public static func parseResponse(_ bytes: [UInt8]) -> HTTPResponse? {
        guard bytes.count <= maxDocumentSize + 16 * 1024 else { return nil }
        var parser = HTTPResponseParser(maxHeadSize: 16 * 1024, maxBodySize: maxDocumentSize)
        parser.feed(bytes)
        if let response = try? parser.next() { return response }
        return try? parser.finish()
    }

    public static func parseSOAP(_ response: HTTPResponse) -> SOAPAnswer {
        guard response.status == 200 else {
            return .fault(code: XMLScan.text("errorCode", in: response.body[...]).flatMap { Int($0) })
        }
        let ip = XMLScan.text("NewExternalIPAddress", in: response.body[...]).flatMap { ipv4(Substring($0)) }
        return .success(externalIP: ip)
    }

    static func hostHeader(_ address: STUNAddress) -> String {
        address.ip.map(String.init).joined(separator: ".") + ":" + String(address.port)
    }

    /// UPnP error codes chatcli reacts to (IGD WANIPConnection:1 §2.4.16).
    public static let conflictInMappingEntry = 718
    public static let onlyPermanentLeasesSupported = 725
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}

extension Character {
    /// Printable ASCII with no space, quote or angle bracket: safe in a request line.
    var isPathCharacter: Bool {
        guard let ascii = asciiValue else { return false }
        return ascii > 32 && ascii < 127 && !"\"<>\\^`{|}".contains(self)
    }
}
