/// Fresh identifiers from the system CSPRNG (`getrandom(2)` behind
/// `SystemRandomNumberGenerator` on Linux).
public enum Identifiers {
    /// A 6-digit join code, uniform over 000000…999999.
    public static func joinCode(using rng: inout some RandomNumberGenerator) -> String {
        let n = UInt32.random(in: 0..<1_000_000, using: &rng)
        let digits = String(n)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// An ephemeral device id: 128 random bits as 32 lowercase hex digits,
    /// never reused and never derived from the machine.
    public static func deviceID(using rng: inout some RandomNumberGenerator) -> String {
        var bytes: [UInt8] = []
        for _ in 0..<2 { withUnsafeBytes(of: rng.next() as UInt64) { bytes.append(contentsOf: $0) } }
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}
