/// The sentences `send` and `receive` say about their peer and how they
/// ended, in one place: each names who stopped (the peer, the user, the
/// server) and what to run next, and promises a resume only where one can
/// happen (a new `send` prints a new code; the receiver's `.part` files are
/// what make it continue).
struct TransferEnding {
    var isSender: Bool
    /// The code as printed (the receiver's as typed), for "run the same command".
    var code: String?
    /// Where the receiver writes (`--out`), for where the `.part` files are.
    var directory = "."
    var offers = 0
    var accepted = 0
    var finished = 0
    var failed = 0
    /// Offers the peer declined: nothing to continue.
    var declined = 0
    /// An error event already said why the session ended (a wrong code, a failed PAKE).
    var errorShown = false
    var peerLeft = false
    /// Bytes that arrived (or went out) in transfers that did not finish: a resume has something to start from.
    var partial = false
    /// The receiver may come back with `receive CODE` (the code has a secret part).
    var receiverCanRejoin = false
    /// This receiver is a rerun, back in the room it saved (ReceiveResume).
    var rejoining = false
    /// How long a rerun waits in the saved room for the sender to answer.
    static let rejoinDeadline: Duration = .seconds(20)

    // MARK: While it runs

    /// The receiver's process dropped out of the room (`peer_away`) mid-transfer.
    var receiverAway: String {
        guard receiverCanRejoin, let code else {
            return "chatcli: the receiver lost its connection; the transfer waits for it to come back."
        }
        return "chatcli: the receiver lost its connection; the transfer waits: on the other machine, run "
            + "'chatcli receive \(code)' again to continue from what arrived."
    }

    /// The sender's process dropped out of the room mid-transfer.
    var senderAway: String {
        "chatcli: the sender lost its connection; what arrived is kept as .part files in \(directory). If it does not come back "
            + "(Ctrl-C leaves), ask your peer to run 'chatcli send' again: 'chatcli receive NEWCODE --out \(directory)' continues from there."
    }

    // MARK: At the end

    /// The last line, if one is needed (`interrupted`: ended by a signal).
    func closing(interrupted: Bool) -> String? {
        if rejoining && offers == 0 && !interrupted {
            return "chatcli: the sender is no longer waiting for this code; what arrived is kept as .part files in \(directory). "
                + "Ask your peer to run 'chatcli send' again, then 'chatcli receive NEWCODE --out \(directory)' continues from there."
        }
        if errorShown && !interrupted { return nil }   // the error said it
        return isSender ? senderClosing(interrupted: interrupted) : receiverClosing(interrupted: interrupted)
    }

    /// Offers that neither arrived nor were declined (failed ones included: what arrived of them is kept).
    private var unfinished: Bool { offers > finished + declined }

    private func senderClosing(interrupted: Bool) -> String? {
        guard unfinished else { return nil }
        if accepted == 0 {
            return interrupted ? nil : "chatcli: your peer left before accepting anything; nothing was sent."
        }
        let who = interrupted ? "Stopped" : "Your peer left"
        return "chatcli: \(who) before the transfer finished. To continue, run 'chatcli send' again and give your peer the new code: "
            + "their 'chatcli receive NEWCODE' continues from what arrived."
    }

    private func receiverClosing(interrupted: Bool) -> String? {
        if partial && unfinished {
            let who = interrupted ? "Stopped" : "The sender left"
            return "chatcli: \(who) before the transfer finished; what arrived is kept as .part files in \(directory). To continue, "
                + "ask your peer to run 'chatcli send' again, then 'chatcli receive NEWCODE --out \(directory)' continues from there."
        }
        if interrupted { return nil }
        if offers == 0 && peerLeft { return "chatcli: your peer left without sending anything." }
        if offers > 0 && accepted == 0 && finished + failed == 0 { return "chatcli: nothing was received: no offer was accepted." }
        return nil
    }
}
