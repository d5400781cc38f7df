import Foundation

/// The chat side of a `chatcli --json` child: the `message` events it printed.
extension ChildProcess {
    /// Texts of every `message` event printed so far.
    var receivedMessages: [String] { stdout.compactMap(Self.messageText) }

    /// Waits until `count` messages arrived (or the deadline); returns them.
    func waitForMessages(count: Int, timeout: TimeInterval = 30) -> [String] {
        // The match closure runs under the process's lock: it must not call back into `self`.
        var texts: [String] = []
        _ = waitForLine(timeout: timeout) { line in
            if let text = Self.messageText(line) { texts.append(text) }
            return texts.count >= count
        }
        return texts
    }

    /// Waits until the `count`th `event` event (counting all printed so far).
    func waitForEvents(_ event: String, count: Int, timeout: TimeInterval) -> Bool {
        var seen = 0
        return waitForLine(timeout: timeout) { line in
            if line.hasPrefix("{\"event\":\"\(event)\"") { seen += 1 }
            return seen >= count
        } != nil
    }

    private static func messageText(_ line: String) -> String? {
        guard line.hasPrefix(#"{"event":"message""#),
              let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        return obj["text"] as? String
    }
}
