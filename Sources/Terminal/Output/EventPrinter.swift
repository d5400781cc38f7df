import Glibc
import ChatClient
import Wire

/// Prints chat events: one JSON object per line on stdout with `--json`;
/// otherwise sentences, results on stdout and progress/errors on stderr.
/// Writes go straight to the file descriptor so a pipe sees each line at once.
public final class EventPrinter {
    public let jsonMode: Bool
    /// The interactive chat takes every event here and draws it itself.
    public var sink: ((ChatEvent) -> Void)?
    /// The server's base URL (`http[s]://host:port`): a `code` event then
    /// also gives the invite link `<base>/j/CODE` that opens the web client.
    public var inviteBase: String?
    /// Draw a QR code of the invite link under it: set when standard
    /// output is a terminal and there is no `--json` (never into a pipe).
    public var qrCodes = false

    /// SGR colours allowed (see `ChatStyle.colorsWanted`).
    public var colors = false

    public init(jsonMode: Bool) { self.jsonMode = jsonMode }

    /// The link a browser opens to join `code`: the six-digit locator in
    /// the path, the secret words in the fragment (`/j/123456#brave-calm`),
    /// which browsers never send: the page reads them, removes them from the
    /// address bar and runs the code's PAKE (WireProtocol §4c).
    public func inviteLink(_ code: String) -> String? {
        guard var base = inviteBase else { return nil }
        while base.hasSuffix("/") { base.removeLast() }
        guard let pairing = PairingCode(userInput: code) else { return "\(base)/j/\(code)" }
        return "\(base)/j/\(pairing.locator)" + (pairing.secret.map { "#\($0)" } ?? "")
    }

    /// The QR code to draw under the invite link, if any (`qrCodes`, and
    /// the terminal is wide enough for it).
    public func inviteQRCode(_ link: String) -> QRCode? {
        guard qrCodes, let code = QRCode(link), code.columns <= LineEditor.terminalColumns else { return nil }
        return code
    }

    /// Whether the QR codes are for a terminal: standard output is one and no `--json`.
    public static func wantsQRCodes(json: Bool) -> Bool { !json && isatty(1) == 1 }

    public func emit(_ event: ChatEvent) {
        var link: String?
        if case .code(let code, _, _) = event { link = inviteLink(code) }
        if let sink {
            sink(event)   // the interactive chat shows the link and its QR code itself
            return
        }
        if jsonMode {
            if var json = event.json {
                if let link, case .object(let fields) = json { json = .object(fields + [("url", .string(link))]) }
                Output.write(json.serialized + "\n", to: 1)
            }
            if case .notice(let text) = event { Output.write(text + "\n", to: 2) }   // never on the JSON stdout
            return
        }
        if var sentence = event.sentence {
            if let link {
                sentence += "\nOr open this link in a browser:  \(link)"
                if let qr = inviteQRCode(link) { sentence += "\n" + qr.terminalLines(colors: colors).joined(separator: "\n") }
            }
            Output.write(sentence + "\n", to: event.isResult ? 1 : 2)
        }
    }
}

public enum Output {
    /// Writes all of `text`, retrying on EINTR and short writes; gives up
    /// silently if the reader went away (EPIPE), as a CLI should.
    public static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n; continue }
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            return
        }
    }
}
