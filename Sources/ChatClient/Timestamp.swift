import Glibc

/// UNIX seconds to and from the forms the CLI shows: the server's ISO 8601
/// `exp` (`2025-01-31T12:00:00.000Z`) and local time for people.
public enum Timestamp {
    /// Parses `YYYY-MM-DDTHH:MM:SS` with optional fraction and a `Z`; nil otherwise.
    public static func parseISO8601(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var n = 0
            for b in bytes[range] {
                guard b >= 0x30 && b <= 0x39 else { return nil }
                n = n * 10 + Int(b - 0x30)
            }
            return n
        }
        let separators: [(Int, Unicode.Scalar)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
        guard separators.allSatisfy({ bytes[$0.0] == UInt8(ascii: $0.1) }),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // An optional fraction of a second (".sss") before the Z.
        let fraction = 19..<(bytes.count - 1)
        guard fraction.isEmpty || (bytes[19] == UInt8(ascii: ".") && fraction.count > 1 && number(20..<fraction.upperBound) != nil)
        else { return nil }
        var tm = Glibc.tm()
        tm.tm_year = Int32(year - 1900)
        tm.tm_mon = Int32(month - 1)
        tm.tm_mday = Int32(day)
        tm.tm_hour = Int32(hour)
        tm.tm_min = Int32(minute)
        tm.tm_sec = Int32(second)
        return Int(timegm(&tm))
    }

    /// `YYYY-MM-DDTHH:MM:SS.000Z`, the form the server sends.
    public static func iso8601(_ seconds: Int) -> String { format(seconds, "%Y-%m-%dT%H:%M:%S.000Z", local: false) }

    /// `YYYY-MM-DD HH:MM` in the local time zone.
    public static func local(_ seconds: Int) -> String { format(seconds, "%Y-%m-%d %H:%M", local: true) }

    /// `HH:MM:SS` in the local time zone, `seconds` from now (a deadline shown to the person).
    public static func local(afterSeconds seconds: Int) -> String? {
        var now = timespec()
        guard clock_gettime(CLOCK_REALTIME, &now) == 0 else { return nil }
        return format(Int(now.tv_sec) + seconds, "%H:%M:%S", local: true)
    }

    private static func format(_ seconds: Int, _ pattern: String, local: Bool) -> String {
        var t = time_t(seconds)
        var tm = Glibc.tm()
        guard (local ? localtime_r(&t, &tm) : gmtime_r(&t, &tm)) != nil else { return String(seconds) }
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, pattern, &tm)
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
