import Glibc
import Runtime
import Wire

/// One structured line per request or connection on stderr (logfmt:
/// `key=value`, values quoted when needed). Client addresses are replaced by
/// a per-process keyed hash unless full addresses were asked for, so lines
/// from one client can be correlated without recording who it was.
/// With `json` (`--log-format json`), each line is one JSON object with the
/// same keys, for log shippers.
public final class AccessLog {
    let showAddresses: Bool
    let json: Bool
    public var enabled = true

    public init(showAddresses: Bool, json: Bool = false) {
        self.showAddresses = showAddresses
        self.json = json
    }

    public func client(_ address: SocketAddress) -> String {
        if showAddresses { return address.description }
        var hasher = Hasher()   // SipHash with a random per-process key
        hasher.combine(address.ip)
        let tag = UInt32(truncatingIfNeeded: hasher.finalize())
        return "anon-" + String(tag, radix: 16)
    }

    public func write(_ event: String, _ fields: KeyValuePairs<String, String>) {
        guard enabled else { return }
        var line: String
        if json {
            line = JSON.object([("ts", .string(Self.timestamp())), ("event", .string(event))] + fields.map { ($0.key, JSON.string($0.value)) }).serialized
        } else {
            line = "ts=\(Self.timestamp()) event=\(event)"
            for (key, value) in fields {
                line += " \(key)=\(Self.quote(value))"
            }
        }
        line += "\n"
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    static func quote(_ value: String) -> String {
        let plain = !value.isEmpty && value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "=") }
        if plain { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func timestamp() -> String {
        UnixTime(milliseconds: wallClockMilliseconds()).iso8601
    }
}
