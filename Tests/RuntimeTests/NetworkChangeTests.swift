import Runtime
import TestSupport
import Testing

/// The default-route reader (kernel text, parsed defensively) and the
/// rtnetlink watcher.
struct DefaultRoutesTests {
    static let ipv4 = """
    Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
    eth0\t00000000\t0101C90A\t0003\t0\t0\t0\t00000000\t0\t0\t0
    eth0\t0001C90A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
    """
    static let ipv6 = """
    00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003 wlan0
    20010db8000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001 wlan0
    """

    @Test func onlyDefaultRoutesAreKept() {
        #expect(DefaultRoutes.parse(ipv4Table: Self.ipv4, ipv6Table: Self.ipv6)
            == ["eth0 0101C90A 0", "wlan0 fe800000000000000000000000000001 00000400"])
    }

    @Test func aMovedDefaultRouteIsADifferentSnapshot() {
        let moved = Self.ipv4.replacingOccurrences(of: "0101C90A", with: "0102C90A")
        #expect(DefaultRoutes.parse(ipv4Table: moved, ipv6Table: "") != DefaultRoutes.parse(ipv4Table: Self.ipv4, ipv6Table: ""))
    }

    @Test func randomAndTruncatedTablesNeverCrash() {
        var rng = SeededRandom(seed: 1)
        let alphabet = Array("0 \t\neth0F\u{0}é")
        for _ in 0..<2000 {
            let noise = String((0..<Int.random(in: 0..<200, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            _ = DefaultRoutes.parse(ipv4Table: noise, ipv6Table: noise)
        }
        for cut in 0...Self.ipv4.count {
            let routes = DefaultRoutes.parse(ipv4Table: String(Self.ipv4.prefix(cut)), ipv6Table: String(Self.ipv6.prefix(cut)))
            #expect(routes.count <= 2)
        }
    }

    @Test func theWatcherOpensOnTheLoopAndReadsTheCurrentNetwork() throws {
        let loop = try EventLoop()
        let watcher = try NetworkWatcher(loop: loop)
        #expect(watcher.current == NetworkSnapshot.current())
        watcher.close()
    }
}
