/// A double-ended queue on a growable ring buffer: O(1) `append`,
/// `popFirst` and `prepend` (amortised), for every poll queue of the
/// sans-IO cores (transmits, events, datagrams) where `Array.removeFirst()`
/// would be O(n).
///
/// Everything is `@inlinable`: the cores live in other modules, and an
/// unspecialised generic looks up `Deque<T>`'s metadata on every call
/// (it was several per cent of a transfer's CPU).
public struct Deque<Element> {
    @usableFromInline var storage: [Element?]
    /// Index in `storage` of the first element.
    @usableFromInline var head = 0
    @usableFromInline var storedCount = 0
    @inlinable public var count: Int { storedCount }

    @inlinable public init() { storage = [] }

    @inlinable public init<S: Sequence>(_ elements: S) where S.Element == Element {
        storage = elements.map { $0 }
        storedCount = storage.count
    }

    @inlinable public var isEmpty: Bool { count == 0 }
    @inlinable public var first: Element? { isEmpty ? nil : storage[head] }
    @inlinable public var last: Element? { isEmpty ? nil : storage[slot(count - 1)] }

    @inlinable public mutating func append(_ element: Element) {
        if count == storage.count { grow() }
        storage[slot(count)] = element
        storedCount += 1
    }

    @inlinable public mutating func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        for element in elements { append(element) }
    }

    /// Puts `element` in front of the others (e.g. a packet to send again first).
    @inlinable public mutating func prepend(_ element: Element) {
        if count == storage.count { grow() }
        head = head == 0 ? storage.count - 1 : head - 1
        storage[head] = element
        storedCount += 1
    }

    @inlinable public mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil   // release it now, not when the slot is reused
        head = head + 1 == storage.count ? 0 : head + 1
        storedCount -= 1
        if storedCount == 0 { head = 0 }
        return element
    }

    @inlinable public mutating func popLast() -> Element? {
        guard count > 0 else { return nil }
        let index = slot(count - 1)
        let element = storage[index]
        storage[index] = nil
        storedCount -= 1
        if storedCount == 0 { head = 0 }
        return element
    }

    /// Removes the first `k` elements (at most `count`).
    @inlinable public mutating func removeFirst(_ k: Int) {
        for _ in 0..<Swift.min(Swift.max(k, 0), count) { _ = popFirst() }
    }

    @inlinable public mutating func removeAll(keepingCapacity: Bool = false) {
        if keepingCapacity {
            for i in storage.indices { storage[i] = nil }
        } else {
            storage = []
        }
        head = 0
        storedCount = 0
    }

    /// Removes the elements for which `shouldBeRemoved` is true, keeping the others in order.
    @inlinable public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        var kept = Deque()
        for element in self where try !shouldBeRemoved(element) { kept.append(element) }
        self = kept
    }

    @inlinable func slot(_ offset: Int) -> Int {
        let index = head + offset
        return index >= storage.count ? index - storage.count : index
    }

    @usableFromInline mutating func grow() {
        var bigger: [Element?] = []
        bigger.reserveCapacity(Swift.max(8, storage.count * 2))
        for offset in 0..<count { bigger.append(storage[slot(offset)]) }
        bigger.append(contentsOf: repeatElement(nil, count: Swift.max(8, storage.count * 2) - count))
        storage = bigger
        head = 0
    }
}

extension Deque: RandomAccessCollection, MutableCollection {
    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    @inlinable public subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < count, "Deque index out of range")
            return storage[slot(position)]!
        }
        set {
            precondition(position >= 0 && position < count, "Deque index out of range")
            storage[slot(position)] = newValue
        }
    }
}

extension Deque: ExpressibleByArrayLiteral {
    @inlinable public init(arrayLiteral elements: Element...) { self.init(elements) }
}

extension Deque: Equatable where Element: Equatable {
    @inlinable public static func == (lhs: Deque, rhs: Deque) -> Bool { lhs.elementsEqual(rhs) }
}

extension Deque: Sendable where Element: Sendable {}
