import ChatClient
import Terminal
import Testing

/// What a person and a script are told when a group member falls behind
/// (issue 31, item 7): the member's name is peer text, cleaned; the numbers
/// are exact; `--json` names who and how many.
@Suite struct GroupFloodSentenceTests {
    @Test func behindCaughtUpAndGapAreOneSentenceEachWithTheMembersCleanName() throws {
        let name = "bob\u{1B}[2J"
        let behind = try #require(ChatEvent.member(id: "m1", name: name, event: .peerBehind(limitBytes: 4 << 20)).sentence)
        #expect(behind.hasPrefix("bob is more than 4 MiB behind you: your lines stop reaching them"), "\(behind)")
        #expect(!behind.contains("\u{1B}"))
        let caughtUp = try #require(ChatEvent.member(id: "m1", name: "bob", event: .peerCaughtUp(missed: 1)).sentence)
        #expect(caughtUp == "bob caught up; 1 line you typed meanwhile did not reach them, and they were told.")
        let gap = try #require(ChatEvent.member(id: "m2", name: "alice", event: .gap(lines: 181)).sentence)
        #expect(gap == "181 lines from alice did not reach you here: you fell too far behind them.")
    }

    @Test func scriptsGetMemberBehindCaughtUpAndGapEvents() {
        #expect(ChatEvent.member(id: "m1", name: "bob", event: .peerBehind(limitBytes: 4 << 20)).json?.serialized
                == #"{"event":"member_behind","member":"m1","name":"bob","limit_bytes":4194304}"#)
        #expect(ChatEvent.member(id: "m1", name: "bob", event: .peerCaughtUp(missed: 7)).json?.serialized
                == #"{"event":"member_caught_up","member":"m1","name":"bob","missed":7}"#)
        #expect(ChatEvent.member(id: "m2", name: "alice", event: .gap(lines: 7)).json?.serialized
                == #"{"event":"gap","from":"m2","name":"alice","lines":7}"#)
    }
}
