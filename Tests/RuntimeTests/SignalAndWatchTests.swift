import Glibc
import Testing
import TestSupport
@testable import Runtime

@Suite struct SignalAndWatchTests {
    @Test func signalHandlerRunsOnTheLoop() throws {
        let loop = try EventLoop()
        var received: [Int32] = []
        try loop.onSignal([SIGUSR1, SIGUSR2]) { signal in
            received.append(signal)
            loop.stop()
        }
        // raise() targets this thread, where the signal is now blocked, so
        // it waits in the signalfd instead of killing the test process.
        #expect(raise(SIGUSR1) == 0)
        #expect(loop.run(timeout: .seconds(5)))
        #expect(received == [SIGUSR1])
    }

    @Test func watchReportsPipeReadability() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        var collected: [UInt8] = []
        var watch: Watch?
        watch = try loop.watchReadable(fd: fds[0]) {
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(fds[0], &buffer, buffer.count)
            if count > 0 { collected += buffer[0..<count] }
            if count == 0 || collected.count >= 5 {
                watch?.cancel()
                loop.stop()
            }
        }
        loop.schedule(after: .zero) {
            _ = write(fds[1], "hello", 5)
        }
        #expect(loop.run(timeout: .seconds(5)))
        #expect(collected == Array("hello".utf8))
        #expect(watch?.isActive == false)
    }

    @Test func watchOnARegularFileCallsBackUntilCancelled() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("input.txt")
        let writer = open(path, O_CREAT | O_WRONLY, 0o600)
        _ = write(writer, "line\n", 5)
        close(writer)
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let loop = try EventLoop()
        var collected: [UInt8] = []
        var watch: Watch?
        watch = try loop.watchReadable(fd: fd) {
            var buffer = [UInt8](repeating: 0, count: 2)
            let count = read(fd, &buffer, buffer.count)
            if count > 0 {
                collected += buffer[0..<count]
            } else {
                watch?.cancel()
                loop.stop()
            }
        }
        #expect(loop.run(timeout: .seconds(5)))
        #expect(collected == Array("line\n".utf8))
    }
}
