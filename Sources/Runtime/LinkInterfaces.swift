import CShims
import Glibc

/// One network interface with its addresses, link-local IPv6 included
/// (mDNS answers carry them; ICE host candidates leave them out).
public struct LinkInterface: Hashable, Sendable {
    public let name: String
    public let index: UInt32
    public let isUp: Bool
    /// IFF_RUNNING: the link has a carrier.
    public let isRunning: Bool
    public let isLoopback: Bool
    public let isPointToPoint: Bool
    public let supportsMulticast: Bool
    public let addresses: [SocketAddress]

    /// Every interface the kernel reports, with its addresses (port 0).
    public static func all() -> [LinkInterface] {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0, let first = head else { return [] }
        defer { freeifaddrs(head) }
        var order: [String] = []
        var flagsByName: [String: Int32] = [:]
        var addressesByName: [String: [SocketAddress]] = [:]
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let name = String(cString: entry.pointee.ifa_name)
            if flagsByName[name] == nil { order.append(name) }
            flagsByName[name] = Int32(bitPattern: entry.pointee.ifa_flags)
            guard let sa = entry.pointee.ifa_addr else { continue }
            let family = Int32(sa.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { dst in
                let size = family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size
                dst.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: size))
            }
            if let address = SocketAddress(storage: storage)?.with(port: 0) {
                addressesByName[name, default: []].append(address)
            }
        }
        return order.map { name in
            let flags = flagsByName[name] ?? 0
            return LinkInterface(name: name, index: if_nametoindex(name),
                                 isUp: flags & Int32(IFF_UP) != 0, isRunning: flags & Int32(IFF_RUNNING) != 0,
                                 isLoopback: flags & Int32(IFF_LOOPBACK) != 0,
                                 isPointToPoint: flags & Int32(IFF_POINTOPOINT) != 0,
                                 supportsMulticast: flags & Int32(IFF_MULTICAST) != 0,
                                 addresses: addressesByName[name] ?? [])
        }
    }
}
