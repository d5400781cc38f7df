/// Why a `--lan` chat could not start or find its peer (`ClientError.lan`);
/// `sentence` is the one place each becomes what the user reads.
public enum LANFailure: Error, Equatable, Sendable {
    /// No interface could carry mDNS: none is eligible (`interface` nil), or
    /// opening the multicast socket on the last one tried failed.
    case noMulticast(interface: String?, reason: String?)
    /// The creator's own signaling endpoint (or the event loop) did not start.
    case cannotStart(what: String, reason: String)
    /// Nothing advertised a chat within `seconds` on these interfaces:
    /// usually multicast does not get through (Wi-Fi client isolation, a firewall).
    case silence(seconds: Int, interfaces: [String])
    /// `nearby` chats answered, none with this locator's proof.
    case noMatch(nearby: Int, locator: String)
    /// Two advertisements prove the same locator: one copies the other.
    case twoClaimants

    public var sentence: String {
        switch self {
        case .noMulticast(nil, _):
            return "No network interface is up with multicast: set CHATCLI_MDNS_INTERFACES to choose one."
        case .noMulticast(let interface?, let reason):
            return "Cannot use multicast on \(interface)\(reason.map { " (\($0))" } ?? ""): set CHATCLI_MDNS_INTERFACES to choose another interface."
        case .cannotStart(let what, let reason):
            return "Cannot start \(what): \(reason)."
        case .silence(let seconds, let interfaces):
            return "No chat answered on the local network within \(seconds) s (on \(interfaces.joined(separator: ", "))): "
                + "check that your peer ran 'chatcli create --lan' on the same network; Wi-Fi client isolation or a firewall "
                + "may block multicast (UDP 5353)."
        case .noMatch(let nearby, let locator):
            return "None of the \(nearby) chat\(nearby == 1 ? "" : "s") waiting nearby has code \(locator): check the code, or ask your peer for a new one."
        case .twoClaimants:
            return "Two chats nearby claim this code, so someone may be imitating your peer: ask them for a new code."
        }
    }
}
