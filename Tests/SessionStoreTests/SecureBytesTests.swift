import Testing

@testable import SessionStore

@Test func secureBytesAreZeroedWhenTheyDie() {
    var sawBytes: [UInt8] = []
    do {
        let key = SecureBytes(copying: Array("super secret key material".utf8))
        #expect(key.withUnsafeBytes { Array($0) } == Array("super secret key material".utf8))
        key.onWipe = { storage in sawBytes = Array(storage) }
    }
    #expect(sawBytes.count >= 25)
    #expect(sawBytes.allSatisfy { $0 == 0 })
}

@Test func wipeZeroesImmediately() {
    let s = SecureBytes(copying: [1, 2, 3, 4])
    s.wipe()
    #expect(s.isEmpty)
    var raw: [UInt8] = []
    s.onWipe = { raw = Array($0) }
    _ = consume s
    #expect(raw == [0, 0, 0, 0])
}

@Test func derivedKeysAreZeroedToo() throws {
    var sawBytes: [UInt8] = [1]
    do {
        let key = try StoreFormat.deriveKey(passphrase: secret("pw"), salt: [UInt8](repeating: 7, count: 16), kdf: .minimum)
        #expect(key.count == 32)
        #expect(key.withUnsafeBytes { $0.contains { $0 != 0 } })
        key.onWipe = { sawBytes = Array($0) }
    }
    #expect(sawBytes.count == 32 && sawBytes.allSatisfy { $0 == 0 })
}

@Test func appendRemoveAndCompareInConstantTime() {
    let a = SecureBytes(count: 0, capacity: 3)
    #expect(a.append(1) && a.append(2) && a.append(3))
    #expect(!a.append(4))
    a.removeLast()
    #expect(a.constantTimeEquals(SecureBytes(copying: [1, 2])))
    #expect(!a.constantTimeEquals(SecureBytes(copying: [1, 3])))
    a.truncate(to: 0)
    #expect(a.constantTimeEquals(SecureBytes(count: 0)))
}
