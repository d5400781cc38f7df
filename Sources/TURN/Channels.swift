import STUN

/// The client's channel bindings (RFC 8656 §11): a channel number stands
/// for one peer transport address, so data can travel as 4-byte-header
/// ChannelData instead of Send and Data indications.
///
/// Bindings last 600 s and are refreshed at 540 s while used. A peer keeps
/// its number for the client's life, even after its binding lapses: the
/// server refuses to bind a number or an address to a different partner
/// for five minutes after expiry (§11), and reusing the old pairing is
/// always allowed.
struct ChannelTable: Sendable {
    static let lifetime: Duration = .seconds(600)
    static let refreshAfter: Duration = .seconds(540)

    enum State: Hashable, Sendable {
        case binding
        case bound
    }

    struct Entry: Sendable {
        let number: UInt16
        var state: State = .binding
        var requestInFlight = false
        var used = false
        var refreshAt: Duration?
    }

    private(set) var entries: [STUNAddress: Entry] = [:]
    /// Every pairing ever made, so a peer gets its old number back.
    private var numberByPeer: [STUNAddress: UInt16] = [:]
    private var peerByNumber: [UInt16: STUNAddress] = [:]
    private var nextNumber = ChannelData.validNumbers.lowerBound

    func boundNumber(for peer: STUNAddress) -> UInt16? {
        guard let entry = entries[peer], entry.state == .bound else { return nil }
        return entry.number
    }

    /// The peer behind a received ChannelData number, if currently bound.
    func peer(for number: UInt16) -> STUNAddress? {
        guard let peer = peerByNumber[number], entries[peer]?.state == .bound else { return nil }
        return peer
    }

    /// Starts (or joins) a binding for `peer`. Returns its number and
    /// whether a ChannelBind should be sent now; `nil` once all 4096
    /// numbers are taken.
    mutating func want(_ peer: STUNAddress) -> (number: UInt16, send: Bool)? {
        if let entry = entries[peer] { return (entry.number, false) }
        let number: UInt16
        if let old = numberByPeer[peer] {
            number = old
        } else {
            guard ChannelData.validNumbers.contains(nextNumber) else { return nil }
            number = nextNumber
            nextNumber += 1
            numberByPeer[peer] = number
            peerByNumber[number] = peer
        }
        entries[peer] = Entry(number: number)
        return (number, true)
    }

    mutating func markRequested(_ peer: STUNAddress) {
        entries[peer]?.requestInFlight = true
        entries[peer]?.refreshAt = nil
    }

    mutating func touch(_ peer: STUNAddress) {
        entries[peer]?.used = true
    }

    /// The server bound or refreshed the channel; returns true on the
    /// first bind.
    mutating func bound(_ peer: STUNAddress, now: Duration) -> Bool {
        guard var entry = entries[peer] else { return false }
        let first = entry.state != .bound
        entry.state = .bound
        entry.requestInFlight = false
        entry.used = false
        entry.refreshAt = now + Self.refreshAfter
        entries[peer] = entry
        return first
    }

    mutating func failed(_ peer: STUNAddress) {
        entries[peer] = nil
    }

    /// Bindings wanted before the allocation existed.
    var unrequested: [(peer: STUNAddress, number: UInt16)] {
        entries.filter { $0.value.state == .binding && !$0.value.requestInFlight }
            .map { ($0.key, $0.value.number) }
            .sorted { $0.number < $1.number }
    }

    var nextDeadline: Duration? {
        entries.values.compactMap(\.refreshAt).min()
    }

    /// Handles due refreshes: returns the bindings to refresh (used since
    /// the last bind); unused ones are dropped.
    mutating func due(now: Duration) -> [(peer: STUNAddress, number: UInt16)] {
        var refresh: [(peer: STUNAddress, number: UInt16)] = []
        for (peer, entry) in entries {
            guard let at = entry.refreshAt, at <= now else { continue }
            if entry.used {
                refresh.append((peer, entry.number))
                entries[peer]?.refreshAt = nil
            } else {
                entries[peer] = nil
            }
        }
        return refresh.sorted { $0.number < $1.number }
    }

    mutating func removeAll() {
        entries = [:]
    }
}
