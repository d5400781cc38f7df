import ChatClient
import SessionStore

/// What purges did, in sentences for stderr, and their effect on the queue.
public enum PurgeReport {
    public static func count(_ n: Int) -> String { n == 1 ? "1 device id" : "\(n) device ids" }

    /// Retried queued purges: done or refused ids leave the queue,
    /// unreachable ones stay. Returns one line per server for the user.
    public static func settleQueue(_ queued: [String: [String]], _ outcomes: [String: Purger.Outcome],
                                   in contents: inout StoreContents) -> [String] {
        var lines: [String] = []
        for (server, ids) in queued.sorted(by: { $0.key < $1.key }) {
            switch outcomes[server] ?? .unreachable("no answer") {
            case .purged:
                contents.purgeSucceeded(server: server, deviceIDs: ids)
                lines.append("Purged \(count(ids.count)) queued for \(server).")
            case .refused(let why):
                contents.purgeSucceeded(server: server, deviceIDs: ids)
                lines.append("chatcli: \(server) refused to purge \(count(ids.count)) (\(why)); dropped from the queue.")
            case .unreachable(let why):
                lines.append("chatcli: still cannot purge \(count(ids.count)) at \(server) (\(why)); will retry next time.")
            }
        }
        return lines
    }
}
