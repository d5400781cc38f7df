import ChatClient
import Runtime

/// Which interfaces mDNS uses: up, running (a carrier), multicast-capable,
/// not loopback or point-to-point (VPN tunnels), and not named like a
/// virtual one (docker, bridges of VMs and containers, veth, tun/tap,
/// WireGuard, Tailscale, ZeroTier). `CHATCLI_MDNS_INTERFACES=eth0,veth1`
/// names the interfaces to use instead (up and multicast-capable ones).
public enum LANInterfaces {
    static let virtualPrefixes = ["docker", "br-", "veth", "virbr", "vboxnet", "vmnet", "tun", "tap", "wg", "tailscale",
                                  "zt", "utun", "ppp", "cni", "flannel", "cali", "lxc", "lxd", "podman"]

    public static func eligible(_ all: [LinkInterface], only: [String]?) -> [LinkInterface] {
        all.filter { link in
            guard link.isUp, link.supportsMulticast, link.index != 0, !link.addresses.isEmpty else { return false }
            if let only { return only.contains(link.name) }
            return link.isRunning && !link.isLoopback && !link.isPointToPoint
                && !virtualPrefixes.contains { link.name.hasPrefix($0) }
        }
    }

    /// `CHATCLI_MDNS_INTERFACES` as a list, nil when unset or empty.
    public static func override(_ value: String?) -> [String]? {
        guard let value else { return nil }
        let names = value.split(separator: ",").map { String($0).trimmingCharacters(in: " ") }.filter { !$0.isEmpty }
        return names.isEmpty ? nil : names
    }
}
