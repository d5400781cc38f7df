import Glibc

/// Where the store passphrase comes from; never argv (WireProtocol §4).
///
/// Precedence in ``resolve(passphraseFD:environmentVariable:)``:
/// `--passphrase-fd N`, then `CHATCLI_PASSPHRASE`, then a no-echo prompt on
/// `/dev/tty`. Every reader returns ``SecureBytes``; no passphrase passes
/// through a `String`.
public enum PassphraseSource: Equatable, Sendable {
    /// An environment variable (read with `getenv`, copied straight into SecureBytes).
    case environment(name: String)
    /// One line (LF or CRLF ended, or up to EOF) from an inherited file descriptor.
    case fileDescriptor(Int32)
    /// A no-echo prompt on the controlling terminal.
    case terminal

    public static let environmentVariable = "CHATCLI_PASSPHRASE"
    public static let maxLength = 1024

    /// The source to use, or nil when there is none (no fd, no variable, no
    /// terminal): then the CLI does not save the session and says so.
    public static func resolve(passphraseFD: Int32?, environmentVariable: String = Self.environmentVariable)
        -> PassphraseSource?
    {
        if let fd = passphraseFD { return .fileDescriptor(fd) }
        if getenv(environmentVariable) != nil { return .environment(name: environmentVariable) }
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard tty >= 0 else { return nil }
        close(tty)
        return .terminal
    }

    /// Reads the passphrase to open an existing store.
    public func read(prompt: String = "Session store passphrase: ") throws(SessionStoreError) -> SecureBytes {
        let secret: SecureBytes
        switch self {
        case .environment(let name):
            guard let value = getenv(name) else { throw .passphraseUnavailable }
            let length = strlen(value)
            guard length <= Self.maxLength else { throw .passphraseTooLong(max: Self.maxLength) }
            secret = SecureBytes(copying: UnsafeRawPointer(value), count: length)
        case .fileDescriptor(let fd):
            secret = try Self.readLine(fd: fd)
        case .terminal:
            let tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
            guard tty >= 0 else { throw .passphraseUnavailable }
            defer { close(tty) }
            secret = try Self.prompt(terminal: tty, prompt: prompt)
        }
        guard !secret.isEmpty else { throw .passphraseEmpty }
        return secret
    }

    /// Reads a new passphrase; on a terminal it is asked twice and the two
    /// entries must match.
    public func readNew(
        prompt: String = "New session store passphrase: ", confirmPrompt: String = "Repeat it: "
    ) throws(SessionStoreError) -> SecureBytes {
        let first = try read(prompt: prompt)
        guard case .terminal = self else { return first }
        let second = try read(prompt: confirmPrompt)
        guard first.constantTimeEquals(second) else { throw .passphraseMismatch }
        return first
    }

    /// One line from `fd`, read a byte at a time so nothing after the line is
    /// consumed (the fd may carry more lines, e.g. old and new for `passwd`).
    static func readLine(fd: Int32) throws(SessionStoreError) -> SecureBytes {
        let line = SecureBytes(count: 0, capacity: maxLength + 1)
        var byte: UInt8 = 0
        var sawAnything = false
        while true {
            let n = Glibc.read(fd, &byte, 1)
            if n < 0 {
                if errno == EINTR { continue }
                throw FileIO.fail("read", "passphrase fd \(fd)")
            }
            if n == 0 { break }
            sawAnything = true
            if byte == UInt8(ascii: "\n") { break }
            guard line.append(byte), line.count <= maxLength else {
                byte = 0
                throw .passphraseTooLong(max: maxLength)
            }
        }
        byte = 0
        guard sawAnything else { throw .passphraseUnavailable }
        line.withUnsafeBytes { b in if b.last == UInt8(ascii: "\r") { line.removeLast() } }
        return line
    }

    /// Asks a yes/no question on the terminal; Enter alone gives
    /// `defaultAnswer`. Ctrl-C is ``SessionStoreError/passphraseInterrupted``.
    public func confirm(_ question: String, defaultAnswer: Bool) throws(SessionStoreError) -> Bool {
        guard case .terminal = self else { return defaultAnswer }
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard tty >= 0 else { throw .passphraseUnavailable }
        defer { close(tty) }
        while true {
            let answer = try Self.prompt(terminal: tty, prompt: question, echo: true)
            let text = answer.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.lowercased()
            switch text.trimmingSpaces {
            case "": return defaultAnswer
            case "y", "yes": return true
            case "n", "no": return false
            default: continue
            }
        }
    }

    /// Prompts on a terminal, with echo off unless `echo` (then typed
    /// characters are echoed by us). The terminal is put in non-canonical
    /// mode with ISIG off, so Ctrl-C arrives as a byte and ends the prompt
    /// through normal control flow: the saved settings are restored by the
    /// `defer` in every case (a SIGINT would otherwise kill the process
    /// with echo still off).
    static func prompt(terminal fd: Int32, prompt: String, echo: Bool = false) throws(SessionStoreError) -> SecureBytes {
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { throw .passphraseUnavailable }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        // Echo goes off before the prompt appears, so nothing typed after
        // seeing the prompt can be echoed or flushed away.
        guard tcsetattr(fd, TCSAFLUSH, &raw) == 0 else { throw .passphraseUnavailable }
        writeAll(fd, prompt)
        defer {
            _ = tcsetattr(fd, TCSAFLUSH, &saved)
            writeAll(fd, "\n")
        }
        let line = SecureBytes(count: 0, capacity: maxLength)
        var byte: UInt8 = 0
        defer { byte = 0 }
        while true {
            let n = Glibc.read(fd, &byte, 1)
            if n < 0 {
                if errno == EINTR { continue }
                throw .passphraseCancelled
            }
            if n == 0 { throw .passphraseCancelled }
            switch byte {
            case 0x0D, 0x0A: return line  // Enter
            case 0x03: throw .passphraseInterrupted  // Ctrl-C
            case 0x04: if line.isEmpty { throw .passphraseCancelled }  // Ctrl-D on an empty line
            case 0x7F, 0x08:  // Backspace
                if echo && !line.isEmpty { writeAll(fd, "\u{8} \u{8}") }
                line.removeLast()
            case 0x15:  // Ctrl-U
                if echo { writeAll(fd, String(repeating: "\u{8} \u{8}", count: line.count)) }
                line.truncate(to: 0)
            case 0x00..<0x20: break  // other control keys are ignored
            default:
                guard line.append(byte) else { throw .passphraseTooLong(max: maxLength) }
                if echo { writeBytes(fd, [byte]) }
            }
        }
    }

    private static func writeBytes(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    private static func writeAll(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
        bytes.removeAll()
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
