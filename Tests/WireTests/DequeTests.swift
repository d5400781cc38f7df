import TestSupport
import Testing
import Wire

@Suite struct DequeTests {
    @Test func firstInFirstOutAcrossGrowthAndWraparound() {
        var deque = Deque<Int>()
        #expect(deque.popFirst() == nil && deque.isEmpty)
        for i in 0..<5 { deque.append(i) }
        #expect(deque.popFirst() == 0 && deque.popFirst() == 1)
        for i in 5..<40 { deque.append(i) }   // wraps, then grows while wrapped
        #expect(Array(deque) == Array(2..<40))
        #expect(deque.first == 2 && deque.last == 39 && deque.count == 38)
    }

    @Test func prependPopLastAndRemoveFirst() {
        var deque: Deque = [3, 4]
        deque.prepend(2)
        deque.prepend(1)
        #expect(Array(deque) == [1, 2, 3, 4])
        #expect(deque.popLast() == 4)
        deque.removeFirst(2)
        #expect(Array(deque) == [3])
        deque.removeFirst(10)
        #expect(deque.isEmpty)
    }

    @Test func removeAllWhereKeepsOrderAndSubscriptWrites() {
        var deque = Deque(0..<10)
        _ = deque.popFirst()
        deque.append(10)
        deque.removeAll { $0 % 2 == 0 }
        #expect(Array(deque) == [1, 3, 5, 7, 9])
        deque[0] = 100
        #expect(deque.first == 100)
        deque.removeAll(keepingCapacity: true)
        #expect(deque.isEmpty && deque.popFirst() == nil)
    }

    /// Against Array as the model, with random operations (seeded).
    @Test func randomOperationsMatchAnArray() {
        var rng = SeededRandom(seed: 0xDE9E)
        var deque = Deque<Int>()
        var model: [Int] = []
        for step in 0..<20_000 {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0, 1: deque.append(step); model.append(step)
            case 2: deque.prepend(step); model.insert(step, at: 0)
            case 3: #expect(deque.popFirst() == (model.isEmpty ? nil : model.removeFirst()))
            case 4: #expect(deque.popLast() == model.popLast())
            default:
                let k = Int.random(in: 0...3, using: &rng)
                deque.removeFirst(k)
                model.removeFirst(min(k, model.count))
            }
            if step % 97 == 0 { #expect(Array(deque) == model) }
        }
        #expect(Array(deque) == model && deque.count == model.count)
    }
}
