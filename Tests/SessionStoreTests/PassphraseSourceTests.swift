import Foundation
import Glibc
import Testing
import TestSupport

@testable import SessionStore

private func text(_ s: SecureBytes) -> String { s.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

/// A pipe pre-filled with `input` and closed for writing.
private func pipeWith(_ input: String) -> Int32 {
    var fds: [Int32] = [0, 0]
    pipe(&fds)
    let bytes = Array(input.utf8)
    _ = bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
    close(fds[1])
    return fds[0]
}

@Test func passphraseFDGivesOneLineAtATime() throws {
    let fd = pipeWith("old pass\r\nnew pass\nrest")
    defer { close(fd) }
    let source = PassphraseSource.fileDescriptor(fd)
    #expect(text(try source.read()) == "old pass")
    #expect(text(try source.readNew()) == "new pass")
    #expect(text(try source.read()) == "rest")
    #expect(throws: SessionStoreError.passphraseUnavailable) { try source.read() }
}

@Test func anEmptyPassphraseIsRefused() {
    let fd = pipeWith("\n")
    defer { close(fd) }
    #expect(throws: SessionStoreError.passphraseEmpty) { try PassphraseSource.fileDescriptor(fd).read() }
}

@Test func anOverlongPassphraseLineIsRefused() {
    let fd = pipeWith(String(repeating: "x", count: 2000) + "\n")
    defer { close(fd) }
    #expect(throws: SessionStoreError.passphraseTooLong(max: 1024)) { try PassphraseSource.fileDescriptor(fd).read() }
}

@Test func environmentVariableIsReadWithoutAString() throws {
    let name = "CHATCLI_TEST_PASSPHRASE_\(getpid())"
    withEnvironmentLock { _ = setenv(name, "from the environment", 1) }
    defer { withEnvironmentLock { _ = unsetenv(name) } }
    #expect(text(try PassphraseSource.environment(name: name).read()) == "from the environment")
    #expect(PassphraseSource.resolve(passphraseFD: nil, environmentVariable: name) == .environment(name: name))
    #expect(PassphraseSource.resolve(passphraseFD: 9, environmentVariable: name) == .fileDescriptor(9))
    #expect(throws: SessionStoreError.passphraseUnavailable) {
        try PassphraseSource.environment(name: name + "_UNSET").read()
    }
}

/// A pseudo-terminal pair: the prompt runs on the slave side, the test types on the master.
private final class PseudoTerminal {
    let master: Int32
    let slave: Int32
    init?() {
        // posix_openpt/unlockpt/ptsname are hidden from Swift's Glibc, so use
        // the Linux ioctls behind them (TIOCSPTLCK, TIOCGPTN; same numbers on x86-64 and arm64).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            return nil
        }
        slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard slave >= 0 else { return nil }
    }
    deinit {
        close(slave)
        close(master)
    }
    /// Reads what the prompt printed until `marker` appears (a blocking read, no sleeping).
    func waitFor(_ marker: String) -> String {
        var seen: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 256)
        while !String(decoding: seen, as: UTF8.self).contains(marker) {
            let n = buf.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            seen += buf[0..<n]
        }
        return String(decoding: seen, as: UTF8.self)
    }
    func type(_ s: String) { _ = Array(s.utf8).withUnsafeBytes { write(master, $0.baseAddress, $0.count) } }
    var echoIsOn: Bool {
        var t = termios()
        tcgetattr(slave, &t)
        return t.c_lflag & tcflag_t(ECHO) != 0 && t.c_lflag & tcflag_t(ISIG) != 0
    }
}

private func promptInBackground(_ pty: PseudoTerminal) -> (DispatchSemaphore, () -> Result<String, SessionStoreError>) {
    let done = DispatchSemaphore(value: 0)
    // Safe: `result` is written by the thread before `done.signal()` and read only after `done.wait()`.
    nonisolated(unsafe) var result: Result<String, SessionStoreError> = .failure(.passphraseUnavailable)
    let slave = pty.slave
    Thread.detachNewThread {
        do throws(SessionStoreError) {
            result = .success(text(try PassphraseSource.prompt(terminal: slave, prompt: "Passphrase: ")))
        } catch {
            result = .failure(error)
        }
        done.signal()
    }
    return (done, { done.wait(); return result })
}

@Test func terminalPromptDoesNotEchoAndRestoresTheTerminal() throws {
    let pty = try #require(PseudoTerminal())
    #expect(pty.echoIsOn)
    let (_, result) = promptInBackground(pty)
    _ = pty.waitFor("Passphrase: ")
    pty.type("hunter2x\u{7F}\r")  // with a backspace
    #expect(try result().get() == "hunter2")
    #expect(!pty.waitFor("\n").contains("hunter"))
    #expect(pty.echoIsOn)
}

@Test func ctrlCAtThePromptInterruptsAndRestoresEcho() throws {
    let pty = try #require(PseudoTerminal())
    let (_, result) = promptInBackground(pty)
    _ = pty.waitFor("Passphrase: ")
    pty.type("half typed\u{03}")
    #expect(throws: SessionStoreError.passphraseInterrupted) { try result().get() }
    #expect(pty.echoIsOn)
}

@Test func ctrlDOnAnEmptyPromptCancels() throws {
    let pty = try #require(PseudoTerminal())
    let (_, result) = promptInBackground(pty)
    _ = pty.waitFor("Passphrase: ")
    pty.type("\u{04}")
    #expect(throws: SessionStoreError.passphraseCancelled) { try result().get() }
    #expect(pty.echoIsOn)
}
