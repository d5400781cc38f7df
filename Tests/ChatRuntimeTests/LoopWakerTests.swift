@testable import ChatRuntime
import Runtime
import Testing

/// A worker thread wakes the event loop through `LoopWaker` (how a file's
/// reading thread tells the chat it read on); after `close` a late signal
/// does nothing.
@Suite struct LoopWakerTests {
    @Test(.timeLimit(.minutes(1)))
    func aSignalFromAnotherThreadWakesTheLoop() throws {
        let loop = try EventLoop()
        var wakes = 0
        let waker = try LoopWaker(loop: loop) {
            wakes += 1
            loop.stop()
        }
        let signal = waker.signal
        #expect(startDetachedThread { for _ in 0..<100 { signal() } } == 0)
        loop.run()   // returns only once the loop was woken
        #expect(wakes >= 1)
        waker.close()
        signal()     // late: the descriptor is closed, nothing is written anywhere
    }
}
