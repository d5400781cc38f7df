import Foundation
import Glibc
import Synchronization
import Testing

/// Runs each test of a suite on a thread of its own, from a pool of
/// `CHATCLI_TEST_THREADS` (default 8) kept for end-to-end tests.
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
struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    /// Served before the others when threads are short: for the long
    /// serialized suites, which are the suite's critical path.
    var first = false
    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        // Applied twice (a suite inside a suite): the outer thread is enough.
        guard !Self.onOwnThread else { return try await function() }
        let asked = Self.seconds()
        let executor = await TestThreads.shared.take(first: first)
        let started = Self.seconds()
        defer {
            TestThreads.shared.give(back: executor)
            // Swift Testing's own times include the wait for a thread; Tools/lib/slowest-tests reads these.
            print(String(format: "◷ Test %@ ran %.3f seconds on its own thread (waited %.3f).", test.name, Self.seconds() - started, started - asked))
        }
        try await Self.$onOwnThread.withValue(true) {
            try await withTaskExecutorPreference(executor) { try await function() }
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
    static var ownThread: Self { OwnThreadTrait() }
    /// The same, ahead of the others: for a long serialized suite (its tests
    /// run one after another, so each wait for a thread lengthens the run).
    static var ownThreadFirst: Self { OwnThreadTrait(first: true) }
}

/// The pool: executors handed out one per running test, waiters served in order.
final class TestThreads: Sendable {
    static let shared = TestThreads(count: Int(getenv("CHATCLI_TEST_THREADS").map { String(cString: $0) } ?? "") ?? 8)

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

/// Every end-to-end suite runs on its own threads: one without the trait
/// would block Swift's cooperative pool again (and the unit tests with it).
@Suite struct OwnThreadTraitTests {
    @Test func everyEndToEndSuiteHasTheTrait() throws {
        let folder = Harness.packageRoot + "/Tests/EndToEndTests"
        var missing: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") && file != "OwnThread.swift" {
            let lines = try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where line.range(of: #"^(@Suite(\(.*\))? )?(struct|final class) "#, options: .regularExpression) != nil {
                // The attribute: on the same line, or on the lines just above.
                let above = lines[..<index].reversed().prefix { $0.hasPrefix("@") || $0.hasPrefix("  ") || $0.hasPrefix("//") }
                let attribute = line.hasPrefix("@Suite") ? line : above.last { $0.hasPrefix("@Suite") }
                let body = lines[index...].prefix { !$0.hasPrefix("}") }
                guard body.contains(where: { $0.contains("@Test") }) else { continue }
                if !(attribute?.contains(".ownThread") ?? false) { missing.append("\(file): \(line)") }
            }
        }
        #expect(missing.isEmpty, "add .ownThread to these suites' @Suite: \(missing)")
    }
}
