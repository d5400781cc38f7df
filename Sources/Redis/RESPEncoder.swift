/// Encodes a command as RESP: an array of bulk strings, which is what every
/// Redis command is on the wire (binary-safe, no quoting).
public enum RESPEncoder {
    public static func command(_ arguments: [String]) -> [UInt8] {
        command(arguments.map { Array($0.utf8) })
    }

    public static func command(_ arguments: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16 + arguments.reduce(0) { $0 + $1.count + 16 })
        out += Array("*\(arguments.count)\r\n".utf8)
        for argument in arguments {
            out += Array("$\(argument.count)\r\n".utf8)
            out += argument
            out += [0x0D, 0x0A]
        }
        return out
    }

    /// Encodes any value (used by tests and the fuzzer to build server replies).
    public static func value(_ value: RESPValue) -> [UInt8] {
        switch value {
        case .simple(let s): return Array("+\(s)\r\n".utf8)
        case .error(let s): return Array("-\(s)\r\n".utf8)
        case .integer(let n): return Array(":\(n)\r\n".utf8)
        case .bulk(nil): return Array("$-1\r\n".utf8)
        case .bulk(let bytes?): return Array("$\(bytes.count)\r\n".utf8) + bytes + [0x0D, 0x0A]
        case .array(nil): return Array("*-1\r\n".utf8)
        case .array(let items?): return Array("*\(items.count)\r\n".utf8) + items.flatMap { Self.value($0) }
        }
    }
}
