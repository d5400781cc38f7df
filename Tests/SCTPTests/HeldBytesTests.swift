import TestSupport
import Testing
@testable import SCTP

/// Message bytes the application polled but still holds (a file's data
/// waiting for a slow disk) count against the receive window: the peer
/// stops once the window is full instead of the application's queue
/// growing, and goes on once they are released.
@Suite struct HeldBytesTests {
    @Test func heldMessagesCloseTheWindowUntilReleased() throws {
        let pair = connectedPair(profile: .clean, seed: 71)
        let a = pair.a, b = pair.b
        let size = 256 << 10, count = 40   // 10 MiB: more than twice the 4 MiB window
        for i in 0..<count { try a.send(stream: 1, ppid: 53, bytes: payload(index: i, size: size)) }
        var got: [[UInt8]] = []
        var held = 0
        _ = pair.run(for: .seconds(30)) {
            while let e = b.pollEvent() {
                guard case .message(_, _, let bytes) = e else { continue }
                got.append(bytes)
                b.hold(bytes: bytes.count)
                held += bytes.count
            }
            return got.count == count
        }
        #expect(got.count < count, "the peer went on past a window full of held messages")
        #expect(held <= b.config.receiveBufferSize + b.config.maxMessageSize)
        #expect(b.receiverWindow < size)
        b.release(bytes: held)
        #expect(pair.run(for: .seconds(60)) {
            while let e = b.pollEvent() {
                if case .message(_, _, let bytes) = e { got.append(bytes) }
            }
            return got.count == count
        })
        #expect(got == (0..<count).map { payload(index: $0, size: size) })
        #expect(b.receiverWindow == b.config.receiveBufferSize)
    }
}
