import COpenSSL

/// A Lua script run with `EVALSHA`: loaded on every connection (``RedisConnection/Settings/setup``)
/// so the name is always known to the server.
public struct RedisScript: Sendable {
    public let source: String
    public let sha1: String

    public init(_ source: String) {
        self.source = source
        let bytes = Array(source.utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { out in _ = SHA1(input.baseAddress, input.count, out.baseAddress) }
        }
        sha1 = digest.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    public var loadCommand: [String] { ["SCRIPT", "LOAD", source] }

    /// `EVALSHA sha 0 args...`: no declared keys (one Redis, not Redis Cluster).
    public func command(_ arguments: [String]) -> [String] { ["EVALSHA", sha1, "0"] + arguments }
}
