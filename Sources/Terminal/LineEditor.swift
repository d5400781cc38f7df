import CReadline
import CShims
import Glibc

/// GNU readline in callback mode, for a terminal chat driven by an event
/// loop: the loop calls `readAvailable()` when stdin is readable; complete
/// lines come back through `onLine` (and leave the input line, which is
/// empty again under the same prompt), end of input (Ctrl-D on an empty
/// line) through `onEnd`. `print` puts text above the prompt and redraws the
/// half-typed line unchanged. History lives in memory only, never on disk.
public final class LineEditor {
    public var onLine: ((String) -> Void)?
    public var onEnd: (() -> Void)?
    public private(set) var prompt: String
    private var installed = false
    /// Handed over after readline returns, never from inside its handler,
    /// so callers may print and redraw freely.
    private var submitted: String?
    private var pendingLines: [String] = []
    private var endPending = false

    /// readline's callback is a C function pointer and cannot capture: it
    /// reaches the one active editor through this. Only the event loop's
    /// thread touches it, and only one editor is installed at a time.
    nonisolated(unsafe) static var active: LineEditor?

    public init(prompt: String) {
        self.prompt = prompt
    }

    /// Readline decodes typed characters by the C locale: take the user's,
    /// and UTF-8 when theirs is not (chat text is UTF-8 on the wire anyway).
    public static func useUTF8Locale() {
        setlocale(LC_CTYPE, "")
        if let codeset = nl_langinfo(nl_item(CODESET)), String(cString: codeset) != "UTF-8" {
            setlocale(LC_CTYPE, "C.UTF-8")
        }
    }

    public func install() {
        cshims_rl_set_catch_signals(0)   // signals arrive through the event loop (signalfd)
        cshims_rl_set_erase_empty_line(1)   // accepting an empty line prints no newline (see `acceptLine`)
        LineEditor.active = self
        rl_callback_handler_install(prompt) { line in
            guard let editor = LineEditor.active else { return }
            guard let line else {
                editor.endPending = true
                return
            }
            free(line)
            rl_set_prompt(editor.prompt)   // `acceptLine` blanked it
            guard let text = editor.submitted else { return }
            editor.submitted = nil
            if !text.isEmpty { add_history(text) }
            editor.pendingLines.append(text)
        }
        for name in ["emacs", "vi-insert", "vi-command"] {
            guard let keymap = rl_get_keymap_by_name(name) else { continue }
            rl_bind_key_in_map(0x0D, { count, key in LineEditor.acceptLine(count, key) }, keymap)
            rl_bind_key_in_map(0x0A, { count, key in LineEditor.acceptLine(count, key) }, keymap)
        }
        installed = true
    }

    /// Return: the typed line leaves the screen (the chat prints it as a
    /// timestamped entry instead) and the prompt stays where it was. The
    /// text is taken aside and deleted through readline (so its undo and
    /// history bookkeeping stay consistent), the prompt blanked, and only
    /// then is the now empty line accepted: readline prints no newline for
    /// it, and the handler gets the text back from `submitted`.
    private static func acceptLine(_ count: Int32, _ key: Int32) -> Int32 {
        LineEditor.active?.submitted = String(cString: cshims_rl_line_buffer())
        rl_delete_text(0, cshims_rl_end())
        cshims_rl_set_point(0)
        rl_set_prompt("")
        rl_redisplay()
        return rl_newline(count, key)
    }

    /// Restores the terminal (call before exit).
    public func uninstall() {
        guard installed else { return }
        installed = false
        // The prompt and any half-typed text leave the screen; the chat's
        // last printed line says how it ended.
        rl_set_prompt("")
        rl_replace_line("", 0)
        rl_redisplay()
        write("\r\u{1B}[K")
        rl_callback_handler_remove()
        clear_history()
        LineEditor.active = nil
    }

    public func readAvailable() {
        guard installed else { return }
        rl_callback_read_char()
        let lines = pendingLines
        pendingLines = []
        for line in lines { onLine?(line) }
        if endPending {
            endPending = false
            onEnd?()
        }
    }

    /// The terminal changed size (SIGWINCH, which readline does not catch here).
    public func resize() {
        guard installed else { return }
        rl_resize_terminal()
    }

    /// The terminal's width in columns (standard output's window size, read
    /// each time so a resize counts at once); 80 when it cannot be known.
    public var columns: Int { Self.terminalColumns }

    /// Standard output's width in columns; 80 when it cannot be known.
    public static var terminalColumns: Int {
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
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

    /// Ctrl-C: drop the half-typed line (and any half-read key sequence or
    /// history edit) and start a fresh one.
    public func clearLine() {
        guard installed else { return }
        cshims_rl_set_point(cshims_rl_end())
        rl_redisplay()
        rl_callback_sigcleanup()
        rl_free_line_state()
        rl_replace_line("", 0)
        using_history()
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
