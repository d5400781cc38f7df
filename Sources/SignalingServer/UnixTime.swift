/// A point in time as milliseconds since the UNIX epoch (UTC).
///
/// Cores never read the clock: the caller passes `now` in, so tests step time
/// by hand. Milliseconds keep `exp` exact in its `toISOString` form.
public struct UnixTime: Hashable, Comparable, Sendable {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }
    public init(seconds: Int64) { milliseconds = seconds &* 1000 }

    /// Whole seconds, rounded down.
    public var seconds: Int64 { milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000 }

    public static func < (a: UnixTime, b: UnixTime) -> Bool { a.milliseconds < b.milliseconds }

    public func adding(seconds: Int64) -> UnixTime { UnixTime(milliseconds: milliseconds &+ seconds &* 1000) }
    public func adding(milliseconds ms: Int64) -> UnixTime { UnixTime(milliseconds: milliseconds &+ ms) }

    /// Whole seconds from `self` until `later`, rounded up (at least 0):
    /// the form `Retry-After` needs.
    public func secondsUntil(_ later: UnixTime) -> Int64 {
        let delta = later.milliseconds - milliseconds
        return delta <= 0 ? 0 : (delta + 999) / 1000
    }

    /// `YYYY-MM-DDTHH:MM:SS.sssZ`, exactly as JavaScript's `Date.toISOString`.
    public var iso8601: String {
        let days = Int64(floorDiv(milliseconds, 86_400_000))
        let msOfDay = milliseconds - days * 86_400_000
        let (year, month, day) = UnixTime.civil(fromDays: days)
        let seconds = msOfDay / 1000
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(seconds / 3600, 2) + ":" + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2)
            + "." + pad(msOfDay % 1000, 3) + "Z"
    }

    private func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : (a - b + 1) / b }

    private func pad(_ n: Int64, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// Howard Hinnant's `civil_from_days`: proleptic Gregorian date of a day count.
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
