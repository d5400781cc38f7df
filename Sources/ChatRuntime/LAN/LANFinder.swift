import ChatClient
import MDNS
import Runtime

/// Looks for the chat whose code the user typed, among those advertised
/// nearby: each proof is checked once (Argon2id, about 20 ms), and the
/// match's endpoint is given as a server URL. Fails with one sentence
/// when nothing answers (multicast blocked: Wi-Fi client isolation), or
/// nothing matches, within `patience`.
public final class LANFinder {
    public enum Outcome {
        case found(ServerURL)
        case failed(ClientError)
    }

    let driver: MDNSDriver
    let code: String
    let loop: EventLoop
    var checked: [String: Bool] = [:]
    var deadline: Timer?
    var done = false
    public var onOutcome: ((Outcome) -> Void)?

    public init(loop: EventLoop, driver: MDNSDriver, code: String) {
        self.loop = loop
        self.driver = driver
        self.code = code
    }

    public func start(patience: Duration = .seconds(5)) {
        driver.onChange = { [weak self] in self?.evaluate() }
        driver.browse(LANService.type)
        deadline = loop.schedule(after: patience) { [weak self] in self?.giveUp(after: patience) }
    }

    func evaluate() {
        guard !done else { return }
        let heard = driver.services()
        var matches: [String: [SocketAddress]] = [:]
        for waiting in LANService.waiting(heard.map(\.service)) {
            let key = waiting.instance + ":" + waiting.proof.txt.values.sorted().joined()
            if checked[key] == nil { checked[key] = waiting.proof.matches(code: code) }
            guard checked[key] == true else { continue }
            for entry in heard where entry.service.instance == waiting.instance {
                matches[waiting.instance, default: []] += entry.addresses
            }
        }
        guard !matches.isEmpty else { return }
        if matches.count > 1 {
            finish(.failed(.lan(.twoClaimants)))
            return
        }
        guard let addresses = matches.values.first, let best = Self.preferred(addresses),
              let url = ServerURL("http://\(best.family == .ipv6 ? "[\(best.ip)]" : best.ip):\(best.port)") else { return }
        finish(.found(url))
    }

    /// IPv4 first, then global IPv6, then link-local IPv6 (with its zone).
    static func preferred(_ addresses: [SocketAddress]) -> SocketAddress? {
        addresses.first { $0.family == .ipv4 }
            ?? addresses.first { $0.family == .ipv6 && !$0.ipBytes.starts(with: [0xFE, 0x80]) }
            ?? addresses.first
    }

    func giveUp(after patience: Duration) {
        guard !done else { return }
        let nearby = LANService.waiting(driver.services().map(\.service)).count
        finish(.failed(.lan(nearby == 0 ? .silence(seconds: Int(patience.components.seconds), interfaces: driver.interfaceNames)
                                        : .noMatch(nearby: nearby, locator: code))))
    }

    func finish(_ outcome: Outcome) {
        done = true
        deadline?.cancel()
        driver.onChange = nil
        onOutcome?(outcome)
    }
}
