import CShims
import Glibc

/// An IPv4 or IPv6 address with a port, as a plain value.
///
/// Stored as two integers rather than a `sockaddr` so it is Hashable,
/// Sendable and free to create per datagram (no heap allocation).
/// IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`, what a dual-stack socket
/// reports for IPv4 peers) are normalised to IPv4 on the way in.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    public enum Family: Sendable, Hashable {
        case ipv4, ipv6
    }

    public let family: Family
    public let port: UInt16
    /// IPv6 zone (interface index) for link-local addresses; 0 otherwise.
    public let scopeID: UInt32
    // Address bytes in network order: IPv6 uses both halves, IPv4 the low 32 bits of `low`.
    private let high: UInt64
    private let low: UInt64

    /// Parses a numeric IP ("192.0.2.1", "::1", "fe80::1%eth0"); nil if it is not one.
    public init?(ip: String, port: UInt16) {
        var v4 = in_addr()
        if inet_pton(AF_INET, ip, &v4) == 1 {
            self.init(ipv4: v4, port: port)
            return
        }
        var address = ip
        var scope: UInt32 = 0
        if let percent = ip.firstIndex(of: "%") {
            address = String(ip[..<percent])
            let zone = String(ip[ip.index(after: percent)...])
            if let number = UInt32(zone) {
                scope = number
            } else {
                scope = if_nametoindex(zone)
                guard scope != 0 else { return nil }
            }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return nil }
        self.init(ipv6: v6, port: port, scopeID: scope)
    }

    /// Parses "1.2.3.4:5", "[::1]:5" or "[fe80::1%eth0]:5".
    public init?(_ text: String) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") { return nil }  // bare IPv6 needs brackets
        }
        guard let port = UInt16(portText) else { return nil }
        self.init(ip: String(host), port: port)
    }

    /// Builds an address from raw bytes (4 for IPv4, 16 for IPv6), as found in STUN attributes.
    public init?(ipBytes: [UInt8], port: UInt16) {
        switch ipBytes.count {
        case 4:
            var value: UInt64 = 0
            for byte in ipBytes { value = value << 8 | UInt64(byte) }
            self.init(family: .ipv4, high: 0, low: value, port: port, scopeID: 0)
        case 16:
            var high: UInt64 = 0
            var low: UInt64 = 0
            for byte in ipBytes[0..<8] { high = high << 8 | UInt64(byte) }
            for byte in ipBytes[8..<16] { low = low << 8 | UInt64(byte) }
            self.init(family: .ipv6, high: high, low: low, port: port, scopeID: 0)
        default:
            return nil
        }
    }

    private init(family: Family, high: UInt64, low: UInt64, port: UInt16, scopeID: UInt32) {
        // ::ffff:a.b.c.d is an IPv4 peer seen through a dual-stack socket.
        if family == .ipv6 && high == 0 && low >> 32 == 0xffff {
            self.family = .ipv4
            self.high = 0
            self.low = low & 0xffff_ffff
            self.scopeID = 0
        } else {
            self.family = family
            self.high = high
            self.low = low
            self.scopeID = scopeID
        }
        self.port = port
    }

    private init(ipv4: in_addr, port: UInt16) {
        self.init(family: .ipv4, high: 0, low: UInt64(UInt32(bigEndian: ipv4.s_addr)), port: port, scopeID: 0)
    }

    private init(ipv6: in6_addr, port: UInt16, scopeID: UInt32) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        withUnsafeBytes(of: ipv6) { bytes in
            for i in 0..<8 { high = high << 8 | UInt64(bytes[i]) }
            for i in 8..<16 { low = low << 8 | UInt64(bytes[i]) }
        }
        self.init(family: .ipv6, high: high, low: low, port: port, scopeID: scopeID)
    }

    /// Reads a `sockaddr_in`/`sockaddr_in6` from kernel-filled storage.
    init?(storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let v4 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            self.init(ipv4: v4.sin_addr, port: UInt16(bigEndian: v4.sin_port))
        case AF_INET6:
            let v6 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            self.init(ipv6: v6.sin6_addr, port: UInt16(bigEndian: v6.sin6_port), scopeID: v6.sin6_scope_id)
        default:
            return nil
        }
    }

    /// The address bytes in network order (4 or 16 bytes).
    public var ipBytes: [UInt8] {
        switch family {
        case .ipv4:
            return (0..<4).map { UInt8(truncatingIfNeeded: low >> (24 - 8 * $0)) }
        case .ipv6:
            return (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
                + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
        }
    }

    /// The numeric IP as text: "192.0.2.1", "::1", "fe80::1%3".
    public var ip: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        var converted: UnsafePointer<CChar>?
        switch family {
        case .ipv4:
            var v4 = in_addr(s_addr: UInt32(truncatingIfNeeded: low).bigEndian)
            converted = inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count))
        case .ipv6:
            var v6 = Self.in6Address(high: high, low: low)
            converted = inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count))
        }
        guard converted != nil else { return "?" }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return scopeID != 0 ? "\(text)%\(scopeID)" : text
    }

    public var description: String {
        family == .ipv4 ? "\(ip):\(port)" : "[\(ip)]:\(port)"
    }

    /// True for 127.0.0.0/8 and ::1.
    public var isLoopback: Bool {
        family == .ipv4 ? low >> 24 == 127 : (high == 0 && low == 1)
    }

    /// True for IPv6 link-local addresses (fe80::/10), which need a zone.
    public var isLinkLocal: Bool { family == .ipv6 && high >> 54 == 0x3FA }

    /// The same address in another zone (interface index); for link-local IPv6.
    public func with(scopeID: UInt32) -> SocketAddress {
        SocketAddress(family: family, high: high, low: low, port: port, scopeID: family == .ipv6 ? scopeID : 0)
    }

    /// True for 0.0.0.0 and ::.
    public var isUnspecified: Bool { high == 0 && low == 0 }

    /// 0.0.0.0 or :: with `port`: bind to every interface (:: is dual-stack).
    public static func unspecified(_ family: Family, port: UInt16) -> SocketAddress {
        SocketAddress(family: family, high: 0, low: 0, port: port, scopeID: 0)
    }

    /// The same IP with another port.
    public func with(port: UInt16) -> SocketAddress {
        SocketAddress(family: family, high: high, low: low, port: port, scopeID: scopeID)
    }

    /// The kernel form. With `asIPv6`, an IPv4 address becomes `::ffff:a.b.c.d`
    /// so it can be used with a dual-stack IPv6 socket.
    func sockaddrStorage(asIPv6: Bool) -> sockaddr_storage {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { raw in
            if family == .ipv4 && !asIPv6 {
                var v4 = sockaddr_in()
                v4.sin_family = sa_family_t(AF_INET)
                v4.sin_port = port.bigEndian
                v4.sin_addr.s_addr = UInt32(truncatingIfNeeded: low).bigEndian
                raw.storeBytes(of: v4, as: sockaddr_in.self)
            } else {
                var v6 = sockaddr_in6()
                v6.sin6_family = sa_family_t(AF_INET6)
                v6.sin6_port = port.bigEndian
                v6.sin6_scope_id = scopeID
                v6.sin6_addr = family == .ipv4
                    ? Self.in6Address(high: 0, low: 0xffff_0000_0000 | low)
                    : Self.in6Address(high: high, low: low)
                raw.storeBytes(of: v6, as: sockaddr_in6.self)
            }
        }
        return storage
    }

    private static func in6Address(high: UInt64, low: UInt64) -> in6_addr {
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { bytes in
            for i in 0..<8 {
                bytes[i] = UInt8(truncatingIfNeeded: high >> (56 - 8 * i))
                bytes[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * i))
            }
        }
        return address
    }

    /// Length to pass with ``sockaddrStorage(asIPv6:)``.
    func sockaddrLength(asIPv6: Bool) -> socklen_t {
        family == .ipv4 && !asIPv6
            ? socklen_t(MemoryLayout<sockaddr_in>.size)
            : socklen_t(MemoryLayout<sockaddr_in6>.size)
    }

    /// Calls `body` with a `sockaddr` pointer for this address.
    func withSockaddr<R>(asIPv6: Bool, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var storage = sockaddrStorage(asIPv6: asIPv6)
        let length = sockaddrLength(asIPv6: asIPv6)
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
