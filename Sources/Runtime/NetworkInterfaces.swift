import CShims
import Glibc

/// The machine's usable IP addresses, for ICE host candidates: every address
/// of every interface that is up, IPv4 and IPv6; loopback only when asked for
/// or when nothing else is up. Link-local IPv6 (with its zone) only when
/// asked for: the chat on the local network (`--lan`) offers it, since two
/// hosts on one link may share nothing else; over the internet it would
/// reach no one and often carries the interface's MAC address (EUI-64),
/// which the server and a distant peer have no business seeing.
public enum NetworkInterfaces {
    public static func addresses(includeLoopback: Bool = false, includeLinkLocal: Bool = false) -> [SocketAddress] {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0, let first = head else { return [] }
        defer { freeifaddrs(head) }
        var found: [SocketAddress] = []
        var loopback: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, let sa = entry.pointee.ifa_addr else { continue }
            let family = Int32(sa.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { dst in
                let size = family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size
                dst.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: size))
            }
            guard let address = SocketAddress(storage: storage)?.with(port: 0) else { continue }
            if address.isLinkLocal && !includeLinkLocal { continue }
            if !includeLoopback && (address.isLoopback || flags & Int32(IFF_LOOPBACK) != 0) {
                loopback.append(address)
            } else if !found.contains(address) {
                found.append(address)
            }
        }
        return found.isEmpty ? loopback : found
    }
}
