import Foundation
import Testing
import TestSupport

/// The interactive chat tells the truth about a relayed path: the prompt
/// says `relay`, and `/status` names the TURN relay and both candidates.
@Suite(.ownThread, .enabled(if: TmuxPane.available, "tmux is not installed (Tools/test installs it)"),
       .enabled(if: Coturn.isInstalled, "coturn's turnserver is not installed (Tools/test installs it)"))
struct InteractiveRelayTests {
    @Test func promptAndStatusSayRelay() throws {
        let coturn = try Coturn()
        defer { coturn.stop() }
        let server = try RelayTests.server(coturn, transports: ["udp"])
        let alice = try InteractiveTests.person("alice", ["create", "--server", server.url, "--relay-only"])
        defer { alice.kill() }
        let shown = alice.waitFor { $0.range(of: #"join \d{6}"#, options: .regularExpression) != nil }
        let code = try #require(shown.screen.range(of: #"\d{6}"#, options: .regularExpression).map { String(shown.screen[$0]) }, "\(shown.screen)")
        let bob = try InteractiveTests.person("bob", ["join", code, "--server", server.url])
        defer { bob.kill() }
        for pane in [alice, bob] {
            let up = pane.waitFor("[connected · relay] >", timeout: 20)
            #expect(up.ok, "\(pane.name) did not connect through the relay:\n\(up.screen)")
        }
        let said = alice.waitFor("through a relay")   // the line may follow the prompt's change on a busy machine
        #expect(said.ok, "\(said.screen)")
        alice.enter("/status")
        let status = alice.waitFor("Room expires:")
        #expect(status.ok, "\(status.screen)")
        #expect(status.screen.contains("State: connected · relay"), "\(status.screen)")
        #expect(status.screen.range(of: #"Path: relayed through a TURN server; local relay 127\.0\.0\.1:\d+"#, options: .regularExpression) != nil,
                "\(status.screen)")
        bob.enter("/status")
        let bobStatus = bob.waitFor("Room expires:")
        #expect(bobStatus.screen.range(of: #"remote relay 127\.0\.0\.1:\d+"#, options: .regularExpression) != nil, "\(bobStatus.screen)")
    }
}
