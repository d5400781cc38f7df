import CShims
import Glibc

/// Host name resolution through getaddrinfo.
///
/// getaddrinfo blocks the calling thread, for as long as DNS takes (seconds
/// for a dead resolver), so code on the event loop uses the asynchronous
/// ``resolve(host:port:loop:timeout:_:)``, which runs it on a thread of its own.
/// Numeric IPs return at once without a lookup.
public enum Resolver {
    /// All addresses of `host`, IPv6 and IPv4 in the system's preferred
    /// order (RFC 6724 via getaddrinfo), without duplicates. Blocks: only
    /// for numeric addresses, tests and threads other than the loop's.
    public static func resolve(host: String, port: UInt16) throws(RuntimeError) -> [SocketAddress] {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let numeric = SocketAddress(ip: bare, port: port) {
            return [numeric]
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(bare, nil, &hints, &list)
        guard status == 0 else {
            let reason = gai_strerror(status).map { String(cString: $0).lowercased() } ?? "error \(status)"
            throw RuntimeError(kind: .resolve, reason: reason, context: "resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var node = list
        while let entry = node?.pointee {
            if let sockaddrPointer = entry.ai_addr {
                var storage = sockaddr_storage()
                let length = min(Int(entry.ai_addrlen), MemoryLayout<sockaddr_storage>.size)
                withUnsafeMutableBytes(of: &storage) { raw in
                    raw.copyMemory(from: UnsafeRawBufferPointer(start: sockaddrPointer, count: length))
                }
                if let address = SocketAddress(storage: storage)?.with(port: port),
                   !addresses.contains(address) {
                    addresses.append(address)
                }
            }
            node = entry.ai_next
        }
        guard !addresses.isEmpty else {
            throw RuntimeError(kind: .resolve, reason: "no addresses found", context: "resolve \(host)")
        }
        return addresses
    }
}
