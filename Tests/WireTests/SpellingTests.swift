import Testing
import Wire

@Suite struct SpellingTests {
    @Test func suggestsTheOneNearWord() {
        let commands = ["create", "join", "send", "receive", "serve", "sessions"]
        #expect(Spelling.closest(to: "craete", in: commands) == "create")   // a swap is one edit
        #expect(Spelling.closest(to: "recieve", in: commands) == "receive")
        #expect(Spelling.closest(to: "JION", in: commands) == "join")
        #expect(Spelling.closest(to: "xyz", in: commands) == nil)
        // "serv" is one edit from "serve" and two from "send": the nearer wins.
        #expect(Spelling.closest(to: "serv", in: commands) == "serve")
        // Equally near two words: no guess.
        #expect(Spelling.closest(to: "cozx", in: ["cosy", "cozy"]) == "cozy")
        #expect(Spelling.closest(to: "coxy", in: ["cosy", "cozy"]) == nil)
    }

    @Test func distanceCountsSwapsAsOneEdit() {
        #expect(Spelling.distance(Array("ab"), Array("ba")) == 1)
        #expect(Spelling.distance(Array(""), Array("abc")) == 3)
        #expect(Spelling.distance(Array("kitten"), Array("sitting")) == 3)
    }
}
