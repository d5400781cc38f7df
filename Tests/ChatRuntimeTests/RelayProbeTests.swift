@testable import ChatRuntime
import STUN
import Testing
import TestSupport

/// The doctor's relay round trip, driven by hand: which actions it asks for
/// and when, with permissions that land late and probes that get lost.
@Suite struct RelayProbeTests {
    static let a = STUNAddress(ipv4: 127, 0, 0, 1, port: 47_001)
    static let b = STUNAddress(ipv4: 127, 0, 0, 1, port: 47_002)

    /// Both allocated: returns the probe with permissions requested, none installed.
    static func allocated() -> RelayProbe {
        var probe = RelayProbe()
        #expect(probe.allocated(b, on: 1).isEmpty)
        #expect(probe.allocated(a, on: 0) == [.createPermission(on: 0, for: b), .createPermission(on: 1, for: a)])
        return probe
    }

    /// The bytes of the single probe in `actions`, sent from 0 to B.
    static func probeBytes(_ actions: [RelayProbe.Action]) -> [UInt8]? {
        guard actions.count == 1, case .send(let bytes, on: 0, to: b) = actions[0] else { return nil }
        return bytes
    }

    @Test func noProbeGoesUntilBothPermissionsAreInstalled() throws {
        var probe = Self.allocated()
        // 0's permission first: a probe now could reach B's relayed address
        // before the server installed B's permission for A, and be dropped.
        #expect(probe.permissionCreated(on: 0, now: .milliseconds(10)).isEmpty)
        #expect(probe.pollTimeout() == nil)
        let first = probe.permissionCreated(on: 1, now: .milliseconds(30))
        #expect(Self.probeBytes(first) != nil, "\(first)")
        #expect(probe.pollTimeout() == .milliseconds(530))
    }

    @Test func aLostProbeIsResentAndTheRoundTripIsTimedFromTheOneThatCameBack() throws {
        var probe = Self.allocated()
        _ = probe.permissionCreated(on: 1, now: .zero)
        let lost = try #require(Self.probeBytes(probe.permissionCreated(on: 0, now: .zero)))
        #expect(probe.handleTimeout(now: .milliseconds(499)).isEmpty)
        let second = try #require(Self.probeBytes(probe.handleTimeout(now: .milliseconds(500))))
        #expect(second != lost)
        let third = try #require(Self.probeBytes(probe.handleTimeout(now: .milliseconds(1000))))
        #expect(probe.probesSent == 3)

        // The second probe reaches B, which echoes it to A.
        #expect(probe.received(second, from: Self.a, on: 1, now: .milliseconds(1020)) == [.send(second, on: 1, to: Self.a)])
        #expect(probe.roundTrip == nil)
        #expect(probe.received(second, from: Self.b, on: 0, now: .milliseconds(1040)) == [])
        #expect(probe.roundTrip == .milliseconds(540))
        #expect(probe.pollTimeout() == nil)
        #expect(probe.handleTimeout(now: .milliseconds(1500)).isEmpty)
        // A later echo changes nothing.
        _ = probe.received(third, from: Self.b, on: 0, now: .milliseconds(1100))
        #expect(probe.roundTrip == .milliseconds(540))
    }

    @Test func dataThatIsNotAProbeFromTheOtherRelayIsIgnored() throws {
        var probe = Self.allocated()
        _ = probe.permissionCreated(on: 0, now: .zero)
        let bytes = try #require(Self.probeBytes(probe.permissionCreated(on: 1, now: .zero)))
        let stranger = STUNAddress(ipv4: 127, 0, 0, 1, port: 47_003)
        #expect(probe.received(bytes, from: stranger, on: 1, now: .zero).isEmpty)
        #expect(probe.received(bytes, from: stranger, on: 0, now: .zero).isEmpty)
        // A probe number never sent.
        var unsent = bytes
        unsent[unsent.count - 1] = 9
        #expect(probe.received(unsent, from: Self.b, on: 0, now: .zero).isEmpty)
        var random = SeededRandom(seed: 7)
        for length in 0..<bytes.count {
            #expect(probe.received(Array(bytes.prefix(length)), from: Self.a, on: 1, now: .zero).isEmpty)
            let noise = (0..<length * 2).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(probe.received(noise, from: Self.b, on: 0, now: .zero).isEmpty)
        }
        #expect(probe.roundTrip == nil)
    }

    /// A relay that installs B's permission 40 ms after A's, drops what
    /// reaches an allocation without one, and loses half of what is left:
    /// the probe still comes back, timed from its own sending.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func theProbeComesBackThroughALateAndLossyRelay(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var probe = Self.allocated()
        let installedAt: [Duration] = [.milliseconds(5), .milliseconds(45)]
        let leg = Duration.milliseconds(3)
        var now = Duration.zero
        var inFlight: [(arrives: Duration, bytes: [UInt8], to: Int)] = []
        var sentAt: [[UInt8]: Duration] = [:]
        func deliver(_ actions: [RelayProbe.Action]) {
            for case .send(let bytes, let from, _) in actions {
                if from == 0 { sentAt[bytes] = now }
                let to = 1 - from
                if now + leg >= installedAt[to] && Bool.random(using: &random) {
                    inFlight.append((now + leg, bytes, to))
                }
            }
        }
        while probe.roundTrip == nil && now < .seconds(10) {
            now += .milliseconds(1)
            for index in 0...1 where now == installedAt[index] {
                deliver(probe.permissionCreated(on: index, now: now))
            }
            deliver(probe.handleTimeout(now: now))
            for arrival in inFlight where arrival.arrives == now {
                let from = arrival.to == 1 ? Self.a : Self.b
                deliver(probe.received(arrival.bytes, from: from, on: arrival.to, now: now))
                if let roundTrip = probe.roundTrip, arrival.to == 0 {
                    #expect(roundTrip == now - (sentAt[arrival.bytes] ?? .zero))
                }
            }
        }
        #expect(probe.roundTrip == leg * 2, "probes sent: \(probe.probesSent)")
    }
}
