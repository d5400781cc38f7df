import Foundation
import Glibc
import Synchronization
import Testing

/// Runs each test of a suite on a thread of its own, from a pool of
/// `CHATCLI_TEST_THREADS` (default 8) kept for end-to-end tests, or (for
/// CPU-bound unit tests, `.computeThread`) from a pool of one thread per core.
///
/// Why: end-to-end tests spend their time blocked — waiting for a child's
/// line, its exit, a namespace to come up — and Swift Testing runs tests on
/// Swift's cooperative pool, which has one thread per core. On this 2-core
/// machine that made the whole suite 2 tests wide: every unit test queued
/// behind two blocked end-to-end tests, and the slowest suites ran end to
/// end one after the other. A task-executor preference (SE-0417) moves a
/// test's body onto one of these threads instead, so blocked tests wait
/// side by side while the cooperative pool stays free for CPU-bound unit
/// tests. The pool's size bounds how many end-to-end tests run at once.
///
/// CPU-bound unit tests that run for seconds take their own pool too: on
/// the cooperative pool they would hold both of its threads, and nothing
/// else — not even the end of a finished end-to-end test — could run.
public struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    /// Served before the others when threads are short: for the long
    /// serialized suites, which are the suite's critical path.
    var first = false
    var pool = TestThreads.shared
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        // Applied twice (a suite inside a suite): the outer thread is enough.
        guard !Self.onOwnThread else { return try await function() }
        let asked = Self.seconds()
        let pool = self.pool
        let executor = await pool.take(first: first)
        let started = Self.seconds()
        try await Self.$onOwnThread.withValue(true) {
            try await withTaskExecutorPreference(executor) {
                // Handed back from the test's own thread, the moment it ends:
                // not after a thread of the cooperative pool (which CPU-bound
                // tests may hold for minutes) comes back to this scope.
                defer {
                    pool.give(back: executor)
                    // Swift Testing's own times include the wait for a thread; Tools/lib/slowest-tests reads these.
                    // (Not for compute threads: a storm of 1,000 seeds would print 1,000 lines.)
                    if pool === TestThreads.shared {
                        print(String(format: "◷ Test %@ ran %.3f seconds on its own thread (waited %.3f).",
                                     test.name, Self.seconds() - started, started - asked))
                    }
                }
                try await function()
            }
        }
    }

    private static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    @TaskLocal private static var onOwnThread = false
}

extension Trait where Self == OwnThreadTrait {
    /// Each test on a thread of its own (see ``OwnThreadTrait``): for tests that block.
    public static var ownThread: Self { OwnThreadTrait() }
    /// The same, ahead of the others: for a long serialized suite (its tests
    /// run one after another, so each wait for a thread lengthens the run).
    public static var ownThreadFirst: Self { OwnThreadTrait(first: true) }
    /// Each test on a thread of a pool with one per core: for unit tests
    /// that compute for seconds (thousands of handshakes, long emulations).
    public static var computeThread: Self { OwnThreadTrait(pool: TestThreads.compute) }
    /// The same, ahead of the others: for the longest of them, which would
    /// otherwise start last and end the run.
    public static var computeThreadFirst: Self { OwnThreadTrait(first: true, pool: TestThreads.compute) }
}

/// The pool: executors handed out one per running test, waiters served in order.
public final class TestThreads: Sendable {
    static let shared = TestThreads(count: Int(getenv("CHATCLI_TEST_THREADS").map { String(cString: $0) } ?? "") ?? 8)
    static let compute = TestThreads(count: sysconf(Int32(_SC_NPROCESSORS_ONLN)))

    private struct State {
        var free: [ThreadExecutor]
        var waiting: [(first: Bool, continuation: CheckedContinuation<ThreadExecutor, Never>)] = []
    }
    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(free: (0..<max(1, count)).map { _ in ThreadExecutor() }))
    }

    func take(first: Bool) async -> ThreadExecutor {
        await withCheckedContinuation { continuation in
            let executor = state.withLock { state -> ThreadExecutor? in
                if let executor = state.free.popLast() { return executor }
                state.waiting.append((first, continuation))
                return nil
            }
            if let executor { continuation.resume(returning: executor) }
        }
    }

    func give(back executor: ThreadExecutor) {
        let waiter = state.withLock { state -> CheckedContinuation<ThreadExecutor, Never>? in
            if state.waiting.isEmpty {
                state.free.append(executor)
                return nil
            }
            let next = state.waiting.firstIndex { $0.first } ?? 0
            return state.waiting.remove(at: next).continuation
        }
        waiter?.resume(returning: executor)
    }
}

/// A task executor with one thread of its own that runs its jobs in order.
final class ThreadExecutor: TaskExecutor, Sendable {
    private let jobs = Mutex<[UnownedJob]>([])
    private let ready = Semaphore()

    init() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { argument in
            Unmanaged<ThreadExecutor>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, context)
        precondition(rc == 0, "no thread for a test: \(rc)")
        pthread_detach(thread)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        ready.signal()
    }

    private func run() -> Never {
        while true {
            ready.wait()
            let job = jobs.withLock { $0.removeFirst() }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// A counting semaphore (POSIX), for the executor's thread to sleep on.
private final class Semaphore: @unchecked Sendable {
    // @unchecked: sem_t is made for sharing between threads; it is never moved.
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    init() { sem_init(semaphore, 0, 0) }
    func signal() { sem_post(semaphore) }
    func wait() { while sem_wait(semaphore) != 0 {} }
}
