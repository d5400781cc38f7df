/// Rate and time left of a transfer from (time, bytes) samples over the
/// last few seconds; `now` comes from the caller (no clock inside).
public struct ProgressMeter: Sendable {
    public let total: UInt64?
    public private(set) var done: UInt64 = 0
    var samples: [(at: Duration, bytes: UInt64)] = []
    static let window: Duration = .seconds(3)

    /// `total` nil for a stream of unknown size.
    public init(total: UInt64?) { self.total = total == TransferMessage.unknownSize ? nil : total }

    /// `bytes` done in all; `resumed` of them were already there (a resumed
    /// transfer's prefix), so they count towards `done` but not the rate:
    /// a 500 MB prefix proven in one step is not 500 MB/s.
    public mutating func record(_ bytes: UInt64, now: Duration, resumed: UInt64 = 0) {
        done = bytes
        samples.append((now, bytes &- min(resumed, bytes)))
        var first = 0
        while first < samples.count - 2 && now - samples[first + 1].at >= Self.window { first += 1 }
        if first > 0 { samples.removeFirst(first) }
    }

    /// Bytes per second over the window; nil until there are two samples.
    public var rate: Double? {
        guard let a = samples.first, let b = samples.last, b.at > a.at else { return nil }
        let seconds = Double((b.at - a.at).components.attoseconds) / 1e18 + Double((b.at - a.at).components.seconds)
        return Double(b.bytes &- a.bytes) / seconds
    }

    public var eta: Duration? {
        guard let total, let rate, rate > 0, total >= done else { return nil }
        return .seconds(Double(total - done) / rate)
    }

    public var fraction: Double? {
        guard let total else { return nil }
        return total == 0 ? 1 : Double(done) / Double(total)
    }

    /// `12.3 MB of 45.6 MB · 11.2 MB/s · 0:03 left`.
    public var summary: String {
        var parts = [Self.bytes(done) + (total.map { " of " + Self.bytes($0) } ?? "")]
        if let rate { parts.append(Self.bytes(UInt64(rate)) + "/s") }
        if let eta { parts.append(Self.clock(eta) + " left") }
        return parts.joined(separator: " · ")
    }

    /// Decimal units, one decimal from kB up: `999 B`, `1.5 kB`, `12.3 MB`.
    public static func bytes(_ n: UInt64) -> String {
        if n < 1000 { return "\(n) B" }
        var value = Double(n)
        for unit in ["kB", "MB", "GB", "TB"] {
            value /= 1000
            if value < 999.95 || unit == "TB" {
                let tenths = Int((value * 10).rounded())
                return "\(tenths / 10).\(tenths % 10) \(unit)"
            }
        }
        return "\(n) B"
    }

    /// `0:07`, `12:34`, `1:02:03`.
    public static func clock(_ d: Duration) -> String {
        let s = max(0, Int(d.components.seconds))
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return s >= 3600 ? "\(s / 3600):\(two(s / 60 % 60)):\(two(s % 60))" : "\(s / 60):\(two(s % 60))"
    }
}
