import Glibc
import Testing

@testable import SessionStore

@Test func aSessionLockIsRefusedAtOnceWhileHeldAndFreeOnceReleased() throws {
    let scratch = ScratchDirectory()
    let store = makeStore(scratch)
    var first: SessionLock? = try store.lockSession(deviceID: "dev-9f2c7a11b3e4d5c6", name: "alice")
    // flock belongs to the open file description: a second open in this process conflicts too.
    #expect(throws: SessionStoreError.sessionOpenElsewhere(name: "alice", pid: getpid())) {
        try store.lockSession(deviceID: "dev-9f2c7a11b3e4d5c6", name: "alice")
    }
    let other = try store.lockSession(deviceID: "dev-0000000000000000", name: "bob")
    withExtendedLifetime(first) {}
    first = nil
    let again = try store.lockSession(deviceID: "dev-9f2c7a11b3e4d5c6", name: "alice")
    withExtendedLifetime((other, again)) {}
    #expect(fileMode(store.locksDirectory) == 0o700)
}

@Test func lockFileNamesAreKeyedHashesOfTheDeviceID() {
    let name = SessionLock.fileName(deviceID: "dev-9f2c7a11b3e4d5c6")
    #expect(name.range(of: #"^[0-9a-f]{32}\.lock$"#, options: .regularExpression) != nil)
    #expect(name != SessionLock.fileName(deviceID: "dev-9f2c7a11b3e4d5c7"))
    #expect(name == SessionLock.fileName(deviceID: "dev-9f2c7a11b3e4d5c6"))
}

@Test func eraseRemovesTheSessionLocks() throws {
    let scratch = ScratchDirectory()
    let (store, _) = try populatedStore(scratch)
    _ = try store.lockSession(deviceID: "dev-9f2c7a11b3e4d5c6", name: "alice")
    try store.erase()
    #expect(fileMode(store.locksDirectory) == nil)
}

@Test func theRefusalNamesTheSessionAndTheOtherProcess() {
    #expect(SessionStoreError.sessionOpenElsewhere(name: "work", pid: 4242).description
            == "session \"work\" is open in another chatcli (pid 4242); continue it there, or end that one first")
    #expect(SessionStoreError.sessionOpenElsewhere(name: "work", pid: nil).description
            == "session \"work\" is open in another chatcli; continue it there, or end that one first")
}
