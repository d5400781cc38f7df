import CReadline
import CShims
import Glibc

/// GNU readline in callback mode, for a terminal chat driven by an event
/// loop: the loop calls `readAvailable()` when stdin is readable; complete
/// lines come back through `onLine`, end of input (Ctrl-D on an empty line)
/// through `onEnd`. `print` puts text above the prompt and redraws the
/// half-typed line unchanged. History lives in memory only, never on disk.
public final class LineEditor {
    public var onLine: ((String) -> Void)?
    public var onEnd: (() -> Void)?
    public private(set) var prompt: String
    private var installed = false

    /// readline's callback is a C function pointer and cannot capture: it
    /// reaches the one active editor through this. Only the event loop's
    /// thread touches it, and only one editor is installed at a time.
    nonisolated(unsafe) static var active: LineEditor?

    public init(prompt: String) {
        self.prompt = prompt
    }

    public func install() {
        cshims_rl_set_catch_signals(0)   // signals arrive through the event loop (signalfd)
        LineEditor.active = self
        rl_callback_handler_install(prompt) { line in
            guard let editor = LineEditor.active else { return }
            guard let line else {
                editor.onEnd?()
                return
            }
            let text = String(cString: line)
            free(line)
            if !text.isEmpty { add_history(text) }
            editor.onLine?(text)
        }
        installed = true
    }

    /// Restores the terminal (call before exit).
    public func uninstall() {
        guard installed else { return }
        installed = false
        rl_callback_handler_remove()
        clear_history()
        LineEditor.active = nil
        Glibc.write(1, "\n", 1)
    }

    public func readAvailable() {
        guard installed else { return }
        rl_callback_read_char()
    }

    /// Prints `text` (one or more lines) above the prompt; what the user was
    /// typing, and the cursor position in it, are put back as they were.
    public func print(_ text: String) {
        guard installed else {
            write(text + "\n")
            return
        }
        let saved = String(cString: cshims_rl_line_buffer())
        let point = cshims_rl_point()
        rl_set_prompt("")
        rl_replace_line("", 0)
        rl_redisplay()
        write("\r\u{1B}[K" + text + "\n")
        rl_set_prompt(prompt)
        rl_replace_line(saved, 0)
        cshims_rl_set_point(point)
        rl_redisplay()
    }

    /// Changes the prompt (it carries the connection state) and redraws.
    public func setPrompt(_ newPrompt: String) {
        prompt = newPrompt
        guard installed else { return }
        rl_set_prompt(newPrompt)
        rl_redisplay()
    }

    /// Ctrl-C: drop the half-typed line and start a fresh one.
    public func clearLine() {
        guard installed else { return }
        rl_replace_line("", 0)
        write("^C\n")
        rl_on_new_line()
        rl_redisplay()
    }

    /// `/clear`: wipe the screen, keep the prompt.
    public func clearScreen() {
        write("\u{1B}[H\u{1B}[2J")
        if installed {
            rl_on_new_line()
            rl_redisplay()
        }
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(1, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { if errno == EINTR { continue } else { return } }
            offset += n
        }
    }
}
