import PortMapping
import STUN

/// What a gateway (or anyone on the LAN) can send the port-mapping client:
/// PCP and NAT-PMP datagrams, SSDP answers, device descriptions and SOAP
/// answers. The first byte picks the decoder, the rest is its input.
extension FuzzTarget {
    static let portMapping = FuzzTarget(
        name: "port-mapping", summary: "PCP (RFC 6887), NAT-PMP (RFC 6886), SSDP, UPnP IGD descriptions and SOAP answers",
        run: portMappingRun)

    @Sendable static func portMappingRun(_ data: [UInt8]) {
        guard let mode = data.first else { return }
        let bytes = Array(data.dropFirst())
        let gateway: [UInt8] = [192, 168, 1, 1]
        switch mode % 4 {
        case 0:
            if case .map(let response)? = PCP.parse(bytes) {
                FuzzCheck.expect(response.external.ip.count == 4 || response.external.ip.count == 16, "a PCP address has 4 or 16 bytes")
            }
            _ = NATPMP.parse(bytes)
            // The same bytes as the gateway's answer to a running mapper.
            let mapper = PortMapper(gateway: gateway, client: STUNAddress(ipv4: 192, 168, 1, 2, port: 4000))
            mapper.start(now: .zero)
            while mapper.pollTransmit() != nil {}
            mapper.handleDatagram(bytes, from: STUNAddress(ipv4: 192, 168, 1, 1, port: 5351), now: .zero)
            while let event = mapper.pollEvent() {
                if case .mapped(let mapping) = event { FuzzCheck.expect(ExternalAddress.isUsable(mapping.external), "only usable addresses are offered") }
            }
        case 1:
            if let location = UPnP.parseSearchResponse(bytes, gateway: gateway) {
                FuzzCheck.expect(location.host.ip == gateway, "an SSDP location is on the gateway")
                FuzzCheck.expect(!location.path.contains(" ") && !location.path.contains("\r"), "a location path fits a request line")
            }
        case 2:
            let base = UPnP.Location(host: STUNAddress(ipv4: 192, 168, 1, 1, port: 5000), path: "/rootDesc.xml")
            if let control = UPnP.parseDescription(bytes, gateway: gateway, base: base) {
                FuzzCheck.expect(control.location.host.ip == gateway, "a control URL is on the gateway")
            }
        default:
            if let response = UPnP.parseResponse(bytes) { _ = UPnP.parseSOAP(response) }
        }
    }
}
