import Foundation

/// One lock for every change to this process's environment and every
/// process the tests start. Tests run side by side on many threads:
/// Foundation's `Process.run` is not safe to call from several at once (it
/// crashed in a `memmove` with eight end-to-end tests starting children),
/// and `setenv` while another thread copies the environment is undefined.
private let spawning = NSLock()

extension Process {
    /// `run()`, one process at a time across the whole test run.
    public func runSerialized() throws {
        spawning.lock()
        defer { spawning.unlock() }
        try run()
    }
}

/// Runs `body` (a `setenv`/`unsetenv`, or a copy of the environment) while no
/// process is being started and nothing else changes the environment.
public func withEnvironmentLock<T>(_ body: () throws -> T) rethrows -> T {
    spawning.lock()
    defer { spawning.unlock() }
    return try body()
}
