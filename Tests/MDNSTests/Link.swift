import TestSupport
@testable import MDNS

/// A shared multicast link for responders and queriers on a manual clock:
/// every multicast datagram reaches every other core at the same instant.
final class Link {
    struct Node {
        var address: [UInt8]
        var responder: MDNSResponder?
        var querier: MDNSQuerier?
    }

    var nodes: [Node] = []
    var now: Duration = .zero
    /// Every datagram sent, with the index of its sender.
    var sent: [(from: Int, transmit: MDNSTransmit)] = []

    @discardableResult
    func add(responder: MDNSResponder? = nil, querier: MDNSQuerier? = nil, address: [UInt8]) -> Int {
        nodes.append(Node(address: address, responder: responder, querier: querier))
        return nodes.count - 1
    }

    /// Delivers everything pending, then steps the clock to `until`, firing each deadline on the way.
    func run(until end: Duration) {
        while true {
            deliver()
            let deadlines = nodes.flatMap { [$0.responder?.pollTimeout(), $0.querier?.pollTimeout()] }.compactMap { $0 }
            guard let next = deadlines.filter({ $0 <= end }).min() else { break }
            now = max(now, next)
            for node in nodes {
                node.responder?.handleTimeout(now: now)
                node.querier?.handleTimeout(now: now)
            }
        }
        now = end
    }

    func deliver() {
        var moved = true
        while moved {
            moved = false
            for (index, node) in nodes.enumerated() {
                var outgoing: [MDNSTransmit] = []
                while let t = node.responder?.pollTransmit() { outgoing.append(t) }
                while let t = node.querier?.pollTransmit() { outgoing.append(t) }
                for transmit in outgoing {
                    moved = true
                    sent.append((index, transmit))
                    for (other, target) in nodes.enumerated() where other != index {
                        if case .unicast(let address, _) = transmit.destination, address != target.address { continue }
                        target.responder?.handle(transmit.bytes, from: node.address, port: 5353, now: now)
                        target.querier?.handle(transmit.bytes, from: node.address, port: 5353, now: now)
                    }
                }
            }
        }
    }
}

enum Fixture {
    static let type = DNSName("_chatcli._udp.local")!

    static func responder(_ instance: String, host: String = "host-a", address: [UInt8] = [192, 0, 2, 1],
                          seed: UInt64 = 1, port: UInt16 = 4000, now: Duration = .zero) -> MDNSResponder {
        MDNSResponder(service: ServiceInstance(instance: instance, serviceType: type, port: port, txt: ["v": "1", "name": instance]),
                      hostLabel: host, addresses: [address], now: now, random: SeededRandom(seed: seed))
    }
}
