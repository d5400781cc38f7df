/// The machine's default routes, read from the kernel's text tables
/// (`/proc/net/route`, `/proc/net/ipv6_route`): a default route that moves
/// to another interface or gateway is a network change even when no address
/// changed. Each route is reduced to "interface gateway metric", so two
/// snapshots compare as plain values.
public enum DefaultRoutes {
    public static func read() -> [String] {
        parse(ipv4Table: ProcFile.read("/proc/net/route") ?? "", ipv6Table: ProcFile.read("/proc/net/ipv6_route") ?? "")
    }

    /// Tolerates any text: lines that do not have the expected fields are skipped.
    public static func parse(ipv4Table: String, ipv6Table: String) -> [String] {
        var routes: [String] = []
        // Iface Destination Gateway Flags RefCnt Use Metric Mask ... (header line first)
        for line in ipv4Table.split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 8, fields[1] == "00000000", fields[7] == "00000000" else { continue }
            routes.append("\(fields[0]) \(fields[2]) \(fields[6])")
        }
        // Destination PrefixLen Source SrcPrefixLen NextHop Metric RefCnt Use Flags Iface (no header)
        for line in ipv6Table.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 10, fields[1] == "00", fields[0].allSatisfy({ $0 == "0" }) else { continue }
            routes.append("\(fields[9]) \(fields[4]) \(fields[5])")
        }
        return routes.sorted()
    }
}
