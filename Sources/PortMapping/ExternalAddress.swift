import STUN

/// Whether an external address a gateway reports is worth offering to a
/// peer. A gateway that says its outside is a private, loopback, link-local,
/// multicast, unspecified or carrier-grade-NAT (RFC 6598) address is either
/// lying or itself behind another NAT: a peer elsewhere cannot reach that
/// mapping, so chatcli does not advertise it.
public enum ExternalAddress {
    public static func isUsable(_ address: STUNAddress) -> Bool {
        guard address.port != 0 else { return false }
        let ip = address.ip
        if address.family == .ipv4 {
            switch (ip[0], ip[1]) {
            case (0, _), (10, _), (127, _), (169, 254), (192, 168): return false
            case (172, 16...31): return false
            case (100, 64...127): return false  // RFC 6598 shared address space (CGNAT)
            case (224...255, _): return false  // multicast, reserved, broadcast
            default: return true
            }
        }
        if ip.allSatisfy({ $0 == 0 }) || ip == [UInt8](repeating: 0, count: 15) + [1] { return false }
        if ip[0] == 0xff || ip[0] & 0xfe == 0xfc || (ip[0] == 0xfe && ip[1] & 0xc0 == 0x80) { return false }
        // IPv4-mapped addresses are judged as IPv4.
        if ip[0..<10].allSatisfy({ $0 == 0 }), ip[10] == 0xff, ip[11] == 0xff,
           let v4 = STUNAddress(ip: Array(ip[12..<16]), port: address.port) {
            return isUsable(v4)
        }
        return true
    }
}
