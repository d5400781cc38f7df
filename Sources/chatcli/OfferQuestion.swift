import ChatClient
import ChatRuntime
import Glibc
import Runtime
import Terminal

/// Puts each offer to the person at the terminal, one at a time (declined
/// when standard input is not a terminal: scripts pass --yes).
final class OfferQuestion {
    let files: FileTransfers
    weak var loop: ChatManager?
    var queue: [Int] = []
    var watch: Watch?
    var buffer: [UInt8] = []

    init(files: FileTransfers) { self.files = files }

    func ask(_ id: Int) {
        guard isatty(0) == 1, let manager = loop else {
            loop?.declineFile(id, reason: "not accepted: the receiver runs without --yes and without a terminal to ask")
            Output.write("chatcli: declined (no terminal to ask; pass --yes to accept offers)\n", to: 2)
            return
        }
        queue.append(id)
        if queue.count == 1 { prompt(manager) }
    }

    static let question = "Accept it? [y/N] "

    /// Whether a question is on the screen, waiting for its answer.
    var isAsking: Bool { !queue.isEmpty && watch != nil }

    /// Before a notice: the question's line is cleared, so the notice takes its place…
    func clearLine() {
        if isAsking { Output.write("\r\u{1B}[K", to: 2) }
    }

    /// …and after it the question is asked again below, as the last line.
    func redraw() {
        if isAsking { Output.write(Self.question, to: 2) }
    }

    func prompt(_ manager: ChatManager) {
        Output.write(Self.question, to: 2)
        guard watch == nil else { return }
        watch = try? manager.eventLoop.watchReadable(fd: 0) { [weak self] in self?.readAnswer() }
    }

    func readAnswer() {
        var byte: UInt8 = 0
        let n = read(0, &byte, 1)
        guard let id = queue.first else { return }
        if n <= 0 {
            watch?.cancel()
            watch = nil
            for id in queue { loop?.declineFile(id, reason: "declined") }
            queue = []
            return
        }
        guard byte == UInt8(ascii: "\n") else { buffer.append(byte); return }
        let answer = String(decoding: buffer, as: UTF8.self).trimmingCharacters(in: " \t\r").lowercased()
        buffer = []
        queue.removeFirst()
        if answer == "y" || answer == "yes" { loop?.acceptFile(id) } else { loop?.declineFile(id, reason: "declined") }
        if queue.isEmpty {
            watch?.cancel()
            watch = nil
        } else if let manager = loop {
            prompt(manager)
        }
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
