import Glibc
import SessionStore

/// A question whose answer is a secret (the store passphrase), asked in the
/// chat's prompt line while the chat goes on: the terminal is already in
/// readline's no-echo character mode, so the typed bytes are read here
/// instead of by readline, never shown, never in a `String` or the history.
/// Notices and messages keep printing above the question.
final class SecretQuestion {
    let question: String
    let answer: (SecureBytes?) -> Void
    let typed = SecureBytes(count: 0, capacity: 1024)
    /// Inside an escape sequence (arrow keys and the like), which is dropped.
    var escape: EscapeState = .none

    enum EscapeState { case none, started, csi }

    init(question: String, answer: @escaping (SecureBytes?) -> Void) {
        self.question = question
        self.answer = answer
    }

    enum Outcome { case pending, done, skipped }

    /// Feeds typed bytes; `.done` on Enter with text, `.skipped` on Enter
    /// alone or Ctrl-D.
    func feed(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        for byte in bytes {
            switch escape {
            case .started: escape = byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") ? .csi : .none; continue
            case .csi: if (0x40...0x7E).contains(byte) { escape = .none }; continue
            case .none: break
            }
            switch byte {
            case 0x1B: escape = .started
            case 0x0D, 0x0A: return typed.isEmpty ? .skipped : .done
            case 0x04: return .skipped
            case 0x7F, 0x08: if !typed.isEmpty { typed.removeLast() }
            case 0x15: typed.truncate(to: 0)   // Ctrl-U
            case 0x00..<0x20: continue
            default: _ = typed.append(byte)
            }
        }
        return .pending
    }
}

extension InteractiveChat {
    /// Asks `question` in the prompt line; `answer` gets what was typed, or
    /// nil when the person pressed Enter alone, Ctrl-D or Ctrl-C, or the chat ended.
    public func askSecret(_ question: String, answer: @escaping (SecureBytes?) -> Void) {
        secret?.answer(nil)
        secret = SecretQuestion(question: question, answer: answer)
        editor.setPrompt(question)
    }

    /// Whether a secret question is waiting for its answer.
    public var isAskingSecret: Bool { secret != nil }

    /// Standard input is readable: a secret question takes the bytes, else readline.
    func readInput() {
        guard let question = secret else {
            editor.readAvailable()
            return
        }
        var buffer = [UInt8](repeating: 0, count: 256)
        defer { buffer.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
        let n = read(0, &buffer, buffer.count)
        if n <= 0 {
            finishSecret(with: nil)
            return
        }
        let outcome = buffer.withUnsafeBytes { question.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        switch outcome {
        case .pending: break
        case .skipped: finishSecret(with: nil)
        case .done: finishSecret(with: question.typed)
        }
    }

    /// Ends the question (Ctrl-C and the chat's end pass nil) and gives the prompt back.
    func finishSecret(with typed: SecureBytes?) {
        guard let question = secret else { return }
        secret = nil
        editor.setPrompt("")
        updatePrompt()
        question.answer(typed)
    }
}

extension InteractiveChat {
    /// A notice above the prompt, like the chat's own.
    public func notice(_ text: String) { show(.notice, text) }
}
