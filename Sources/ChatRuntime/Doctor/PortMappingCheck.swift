import ChatClient
import PortMapping
import Runtime
import STUN
import Wire

/// `chatcli doctor`'s question to the default gateway: which port-mapping
/// protocols it answers, and whether it grants a UDP mapping (which is
/// deleted again at once).
final class PortMappingCheck {
    struct Result: Sendable {
        var gateway: String?
        var offers = PortMappingOffers()
        var mapping: PortMapping?
        var failure: PortMappingError?

        var json: JSON {
            func answer(_ value: Bool?) -> JSON { value.map(JSON.bool) ?? .null }
            return .object([
                "gateway": gateway.map(JSON.string) ?? .null,
                "pcp": answer(offers.pcp), "nat_pmp": answer(offers.natPMP), "upnp": answer(offers.upnp),
                "method": mapping.map { .string($0.method.rawValue) } ?? .null,
                "mapped": mapping.map { .string($0.external.description) } ?? .null,
                "error": failure.map { .string($0.description) } ?? .null,
            ])
        }

        var text: String {
            guard let gateway else { return "no IPv4 default gateway" }
            let spoken = [("PCP", offers.pcp), ("NAT-PMP", offers.natPMP), ("UPnP", offers.upnp)]
                .filter { $0.1 == true }.map(\.0)
            let speaks = spoken.isEmpty ? "answers none of PCP, NAT-PMP, UPnP" : "answers " + spoken.joined(separator: ", ")
            if let mapping {
                return "gateway \(gateway) \(speaks); it mapped a UDP port to \(mapping.external) by \(mapping.method.rawValue) (deleted again)."
            }
            return "gateway \(gateway) \(speaks). " + (failure?.description ?? "")
        }
    }

    private let loop: EventLoop
    private var link: PortMapperLink?
    private var timer: Timer?

    init(loop: EventLoop) { self.loop = loop }

    /// How long doctor gives the gateway to answer every protocol: longer
    /// than a chat's `probeWindow` (which nothing waits on), so a busy
    /// router, or one on a loaded machine, is not reported silent.
    static let window: Duration = .seconds(2)

    func run(_ done: @escaping (Result) -> Void) {
        guard let route = DefaultGateway.ipv4() else { return loop.execute { done(Result()) } }
        var result = Result(gateway: route.gateway.map(String.init).joined(separator: "."))
        let addresses = LinkInterface.all().first { $0.name == route.interface }?.addresses.filter { $0.family == .ipv4 } ?? []
        var config = PortMapperLink.configured
        config.probeWindow = Self.window
        // A throwaway socket's port stands for the chat's ICE port.
        guard let local = addresses.first, let socket = try? UDPSocket(loop: loop, bind: local),
              let base = STUNAddress(socket.localAddress),
              let link = PortMapperLink(loop: loop, base: base, gateway: route.gateway, config: config)
        else { return loop.execute { done(result) } }
        self.link = link
        let finish = { [weak self] in
            guard let self, let link = self.link else { return }
            self.timer?.cancel()
            result.offers = link.mapper.offers
            result.failure = result.mapping == nil ? link.mapper.failure : nil
            self.link = nil
            link.release {
                socket.close()
                done(result)
            }
        }
        link.onEvent = { event in
            guard case .mapped(let mapping) = event else { return finish() }
            result.mapping = mapping
        }
        // Mapped, and every protocol asked has answered: nothing more to learn.
        link.onProgress = { [weak link] in
            guard let link, result.mapping != nil, Self.everyAnswerIsIn(link.mapper.offers, asked: config.methods) else { return }
            finish()
        }
        timer = loop.schedule(after: Self.window) { finish() }
        link.start()
    }

    static func everyAnswerIsIn(_ offers: PortMappingOffers, asked: Set<PortMapping.Method>) -> Bool {
        asked.allSatisfy { method in
            switch method {
            case .pcp: offers.pcp != nil
            case .natPMP: offers.natPMP != nil
            case .upnp: offers.upnp != nil
            }
        }
    }
}
