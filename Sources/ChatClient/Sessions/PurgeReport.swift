import SessionStore

/// What purges did, in sentences on stderr, and their effect on the queue.
public enum PurgeReport {
    public static func count(_ n: Int) -> String { n == 1 ? "1 device id" : "\(n) device ids" }

    /// Retried queued purges: done or refused ids leave the queue, unreachable ones stay.
    public static func settleQueue(_ queued: [String: [String]], _ outcomes: [String: Purger.Outcome],
                            in contents: inout StoreContents) {
        for (server, ids) in queued.sorted(by: { $0.key < $1.key }) {
            switch outcomes[server] ?? .unreachable("no answer") {
            case .purged:
                contents.purgeSucceeded(server: server, deviceIDs: ids)
                Output.write("Purged \(count(ids.count)) queued for \(server).\n", to: 2)
            case .refused(let why):
                contents.purgeSucceeded(server: server, deviceIDs: ids)
                Output.write("chatcli: \(server) refused to purge \(count(ids.count)) (\(why)); dropped from the queue.\n", to: 2)
            case .unreachable(let why):
                Output.write("chatcli: still cannot purge \(count(ids.count)) at \(server) (\(why)); will retry next time.\n", to: 2)
            }
        }
    }
}
