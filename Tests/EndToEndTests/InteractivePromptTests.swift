import Foundation
import TestSupport
import Testing

/// The prompt counts what has not reached the peer, and `/status` says it
/// too. Skipped visibly without tmux (`Tools/test` installs it).
@Suite(.ownThread, .serialized, .enabled(if: TmuxPane.available, "tmux is not installed (Tools/test installs it)"))
struct InteractivePromptTests {
    @Test func aMessageTypedBeforeThePeerCameIsCountedUntilDelivered() throws {
        let server = try ServerProcess()
        let (alice, code) = try InteractiveTests.create(server)
        defer { alice.kill() }
        alice.enter("early bird")
        let queued = alice.waitFor("[waiting for peer · 1 waiting] >")
        #expect(queued.ok, "\(queued.screen)")
        #expect(queued.screen.contains("it will be sent once the connection is up"))
        alice.enter("/status")
        let status = alice.waitFor("Room expires:")
        #expect(status.screen.contains("Sent: 1 message, 10 bytes (1 waiting for your peer)"), "\(status.screen)")

        let bob = try InteractiveTests.person("bob", ["join", code, "--server", server.url])
        defer { bob.kill() }
        let arrived = bob.waitFor("peer: early bird", timeout: 20)
        #expect(arrived.ok, "\(arrived.screen)")
        let delivered = alice.waitFor { _ in alice.promptLine.hasSuffix("[connected · direct] >") }
        #expect(delivered.ok, "the count is gone once delivered: \(alice.promptLine)")
    }
}
