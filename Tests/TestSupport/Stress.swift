import Foundation

/// How many seeded worlds the stress tests build. Each run of `Tools/test`
/// builds `base` of them (a few hundred: the suite has a 12-minute budget on
/// two cores, and the coverage-guided search is the fuzz targets' job);
/// `CHATCLI_STRESS=N` multiplies that for a deeper run, e.g. before a
/// release: `CHATCLI_STRESS=4 Tools/test --filter StormTests`. The seeds
/// stay the same for the same `N`, so a failure names one that reproduces.
public enum Stress {
    public static let factor: Int = {
        guard let text = ProcessInfo.processInfo.environment["CHATCLI_STRESS"], let n = Int(text), n >= 1 else { return 1 }
        return min(n, 100)
    }()

    public static func runs(_ base: Int) -> Int { base * factor }
}
