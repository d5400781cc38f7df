@testable import ChatClient
import Testing
import TestSupport

/// Random storms of crashes, resumes, server restarts and typing: whatever
/// happens, every line typed by a process that lives to the end reaches the
/// other side's screens exactly once, in order. Hundreds of worlds, each a
/// few milliseconds of real time. (Offer glare after a resume during server
/// restarts stalled 10 of the first 200 seeds until the initiator became
/// the impolite side; see `ChatSession.offerCollides`.)
@Suite struct StormTests {
    @Test(arguments: 1...1000)
    func everyLineOfASurvivorArrivesExactlyOnceInOrder(seed: Int) throws {
        try storm(seed: seed)
    }

    func storm(seed: Int) throws {
        var rng = SeededRandom(seed: UInt64(seed))
        let world = try World(seed: UInt64(seed))
        let (alice, bob) = try world.pair()
        var current = ["alice": alice, "bob": bob]
        var typed: [ObjectIdentifier: [String]] = [:]
        var n = 0
        for _ in 0..<12 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0...5:
                let who = Bool.random(using: &rng) ? "alice" : "bob"
                guard let client = current[who], !client.crashed, client.status == nil else { break }
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    n += 1
                    let line = "\(client.label) \(n)"
                    client.type(line)
                    typed[ObjectIdentifier(client), default: []].append(line)
                }
            case 6, 7:
                let who = Bool.random(using: &rng) ? "alice" : "bob"
                guard let client = current[who] else { break }
                if client.crashed {
                    current[who] = world.resume(client)
                } else if current.values.allSatisfy({ !$0.crashed }) {
                    world.crash(client)
                }
            case 8:
                world.restartServer(downFor: .milliseconds(Int64.random(in: 100...8000, using: &rng)))
            default:
                break
            }
            world.run(for: .milliseconds(Int64.random(in: 1...6000, using: &rng)))
        }
        // Heal: everyone back, then time to settle.
        for (who, client) in current where client.crashed { current[who] = world.resume(client) }
        world.run(for: .seconds(120))
        let everyone = world.clients
        for sender in everyone where !sender.crashed {
            let mine = typed[ObjectIdentifier(sender)] ?? []
            let prefix = sender.label + " "
            let shown = everyone.filter { $0.name != sender.name }.flatMap { $0.messages.filter { $0.hasPrefix(prefix) } }
            #expect(shown == mine, "seed \(seed): \(sender.label)'s lines on the other side\n\(world.clients.map { "\($0.label) \($0.crashed ? "crashed" : "alive"): \($0.events)" }.joined(separator: "\n"))")
            #expect(sender.session.undeliveredMessages == 0, "seed \(seed)")
        }
    }
}
