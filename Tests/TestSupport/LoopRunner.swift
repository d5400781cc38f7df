import Runtime

extension EventLoop {
    /// Runs the loop until `stop()`, but never longer than `timeout` (the
    /// deadline timer keeps the loop alive, so tests must call `stop()`). Returns false if the deadline hit,
    /// so a test can fail instead of hanging:
    /// `#expect(loop.run(timeout: .seconds(5)))`.
    public func run(timeout: Duration) -> Bool {
        var timedOut = false
        let deadline = schedule(after: timeout) {
            timedOut = true
            self.stop()
        }
        run()
        deadline.cancel()
        return !timedOut
    }
}
