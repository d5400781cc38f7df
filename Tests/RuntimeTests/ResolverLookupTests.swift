import Glibc
import Synchronization
import Testing
import TestSupport
@testable import Runtime

/// The asynchronous resolver: answers on the loop thread on a later turn,
/// never inside the call, and gives up at its deadline on a lookup that
/// hangs (whose late answer is then dropped).
@Suite struct ResolverLookupTests {
    @Test(arguments: ["localhost", "127.0.0.1", "[::1]"])
    func theAnswerComesOnTheLoopThreadOnALaterTurn(host: String) throws {
        let loop = try EventLoop()
        let loopThread = pthread_self()
        var returned = false
        var answer: Result<[SocketAddress], RuntimeError>?
        Resolver.resolve(host: host, port: 8, loop: loop) { result in
            #expect(returned, "never called from inside resolve()")
            #expect(pthread_equal(pthread_self(), loopThread) != 0, "called on the loop's thread")
            answer = result
            loop.stop()
        }
        returned = true
        #expect(loop.run(timeout: .seconds(10)))
        let addresses = try #require(try answer?.get())
        #expect(!addresses.isEmpty && addresses.allSatisfy { $0.isLoopback && $0.port == 8 })
    }

    @Test func aFailedLookupIsAnErrorOnTheLoop() throws {
        let loop = try EventLoop()
        var returned = false
        var answer: Result<[SocketAddress], RuntimeError>?
        Resolver.resolve(host: "no-such-host.invalid", port: 1, loop: loop) { result in
            #expect(returned)
            answer = result
            loop.stop()
        }
        returned = true
        #expect(loop.run(timeout: .seconds(10)))
        #expect(throws: RuntimeError.self) { try answer?.get() }
    }

    @Test func aLookupThatHangsTimesOutAndItsLateAnswerIsDropped() throws {
        let loop = try EventLoop()
        let release = Mutex(false), finished = Mutex(false)
        let hanging: Resolver.Lookup = { _, port throws(RuntimeError) in
            // Blocks until the test lets it go: like a DNS server that never answers.
            while !release.withLock({ $0 }) { usleep(1000) }
            defer { finished.withLock { $0 = true } }
            return [SocketAddress(ip: "192.0.2.1", port: port)!]
        }
        var answers: [Result<[SocketAddress], RuntimeError>] = []
        Resolver.resolve(host: "slow.example", port: 53, loop: loop, timeout: .milliseconds(100), lookup: hanging) { result in
            answers.append(result)
            loop.stop()
        }
        #expect(loop.run(timeout: .seconds(10)), "the deadline answers although the lookup never returns")
        #expect(answers.count == 1)
        #expect(throws: RuntimeError(kind: .timedOut, reason: "the name lookup for slow.example took too long",
                                     context: "resolve slow.example")) { try answers.first?.get() }

        release.withLock { $0 = true }
        while !finished.withLock({ $0 }) { usleep(1000) }
        _ = loop.run(timeout: .milliseconds(200))
        #expect(answers.count == 1, "the late answer is dropped")
    }

    @Test func aStopBeforeRunIsNotForgottenAndEndsOnlyThatRun() throws {
        let loop = try EventLoop()
        var ticks = 0
        loop.schedule(after: .milliseconds(1)) { ticks += 1 }
        loop.stop()
        loop.run()
        #expect(ticks == 0, "run() returned at once")
        loop.schedule(after: .milliseconds(1)) { ticks += 1; loop.stop() }
        #expect(loop.run(timeout: .seconds(10)), "the next run runs")
        #expect(ticks == 2)
    }
}
