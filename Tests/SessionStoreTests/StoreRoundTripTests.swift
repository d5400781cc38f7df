import Testing
import Wire

@testable import SessionStore

@Test func savedSessionsReadBackExactly() throws {
    let scratch = ScratchDirectory()
    let (store, _) = try populatedStore(scratch)
    let contents = try store.read(passphrase: secret("correct horse"))
    #expect(contents.list() == [sampleRecord("alice"), sampleRecord("bob", code: "120044", device: "dev-77aa55bb33cc11dd")])
    #expect(contents.pendingPurges == ["https://signal.example.org": ["dev-old-0123456789"]])
    #expect(contents.find(name: "bob")?.code == "120044")
}

@Test func aJoinersUnknownExpiryRoundTripsAsNil() throws {
    let scratch = ScratchDirectory()
    let store = makeStore(scratch)
    var joiner = sampleRecord("joined")
    joiner.role = .joiner
    joiner.expires = nil
    try store.withLockedStore(passphrase: secret("pw")) { c throws(SessionStoreError) in try c.add(joiner) }
    #expect(try store.read(passphrase: secret("pw")).find(name: "joined") == joiner)
    #expect(SessionRecord(json: joiner.json) == joiner)
    var text = joiner.json
    if case .object(var members) = text {
        #expect(!members.contains { $0.0 == "expires" }, "an unknown expiry is left out")
        members.append(("expires", .string("soon")))
        text = .object(members)
    }
    #expect(SessionRecord(json: text) == nil, "an expiry that is not a number is refused")
}

@Test func aMissingStoreReadsAsEmptyAndIsNotCreatedByReading() throws {
    let scratch = ScratchDirectory()
    let store = makeStore(scratch)
    #expect(try store.read(passphrase: secret("x")) == StoreContents())
    try store.withLockedStore(passphrase: secret("x")) { _ throws(SessionStoreError) in }
    #expect(!store.exists)
}

@Test func renameKeepsNamesUniqueAndReportsUnknownNames() throws {
    var c = StoreContents()
    try c.add(sampleRecord("alice"))
    try c.add(sampleRecord("bob"))
    #expect(throws: SessionStoreError.nameInUse("bob")) { try c.rename("alice", to: "bob") }
    #expect(throws: SessionStoreError.unknownSession("carol")) { try c.rename("carol", to: "dave") }
    #expect(throws: SessionStoreError.nameInUse("alice")) { try c.add(sampleRecord("alice")) }
    #expect(throws: SessionStoreError.invalidName("")) { try c.rename("alice", to: "") }
    #expect(throws: SessionStoreError.invalidName("a\u{1B}[2J")) { try c.rename("alice", to: "a\u{1B}[2J") }
    try c.rename("alice", to: "work chat")
    #expect(c.find(name: "work chat") != nil && c.find(name: "alice") == nil)
    #expect(c.uniqueName(base: "bob") == "bob-2")
}

@Test func removeReturnsTheDeviceIDsToPurge() throws {
    var c = StoreContents()
    try c.add(sampleRecord("alice", device: "dev-aaaaaaaaaaaa"))
    let removed = try c.remove(name: "alice")
    #expect(removed.deviceIDs == ["dev-aaaaaaaaaaaa", "dev-aaaaaaaaaaaa-2"])
    #expect(c.list().isEmpty)
    #expect(throws: SessionStoreError.unknownSession("alice")) { try c.remove(name: "alice") }
}

@Test func statusMovesFromPendingToAcceptedToClosed() throws {
    let scratch = ScratchDirectory()
    let store = makeStore(scratch)
    var record = sampleRecord("alice")
    record.status = .pending
    record.roomID = nil
    try store.withLockedStore(passphrase: secret("pw")) { c throws(SessionStoreError) in try c.add(record) }
    try store.withLockedStore(passphrase: secret("pw")) { c throws(SessionStoreError) in
        try c.updateStatus(name: "alice", to: .accepted, roomID: "ab" + String(repeating: "0", count: 46))
    }
    #expect(try store.read(passphrase: secret("pw")).find(name: "alice")?.status == .accepted)
    try store.withLockedStore(passphrase: secret("pw")) { c throws(SessionStoreError) in
        try c.updateStatus(name: "alice", to: .closed)
    }
    let alice = try store.read(passphrase: secret("pw")).find(name: "alice")
    #expect(alice?.status == .closed)
    #expect(alice?.roomID == "ab" + String(repeating: "0", count: 46))
}

@Test func pendingPurgesQueueAndDrain() {
    var c = StoreContents()
    c.queuePurge(server: "s", deviceIDs: ["a", "b"])
    c.queuePurge(server: "s", deviceIDs: ["b", "c"])
    #expect(c.pendingPurges["s"] == ["a", "b", "c"])
    c.purgeSucceeded(server: "s", deviceIDs: ["a", "b", "c"])
    #expect(c.pendingPurges.isEmpty)
}

@Test func aFailingTransactionWritesNothing() throws {
    let scratch = ScratchDirectory()
    let (store, before) = try populatedStore(scratch)
    #expect(throws: SessionStoreError.nameInUse("alice")) {
        try store.withLockedStore(passphrase: secret("correct horse")) { c throws(SessionStoreError) in
            try c.rename("bob", to: "bob2")
            try c.add(sampleRecord("alice"))
        }
    }
    #expect(fileBytes(store.path) == before)
}

@Test func everyWriteUsesAFreshNonceButKeepsTheSalt() throws {
    let scratch = ScratchDirectory()
    let (store, first) = try populatedStore(scratch)
    try store.withLockedStore(passphrase: secret("correct horse")) { c throws(SessionStoreError) in
        try c.rename("bob", to: "robert")
    }
    let second = try #require(fileBytes(store.path))
    let h1 = try StoreHeader.parse(first)
    let h2 = try StoreHeader.parse(second)
    #expect(h1.nonce != h2.nonce)
    #expect(h1.salt == h2.salt)
}

@Test func kdfParametersAreStoredInTheHeader() throws {
    let scratch = ScratchDirectory()
    let (_, bytes) = try populatedStore(scratch)
    let header = try StoreHeader.parse(bytes)
    #expect(header.kdf == .minimum)
    #expect(Array(bytes.prefix(8)) == Array("CHATCLI\0".utf8))
    #expect(KDFParameters.interactive == KDFParameters(opsLimit: 2, memLimit: 64 << 20))
}

@Test func strongerConfiguredParametersUpgradeTheFileOnTheNextWrite() throws {
    let scratch = ScratchDirectory()
    let (weak, _) = try populatedStore(scratch)
    let stronger = KDFParameters(opsLimit: 2, memLimit: 64 << 10)
    let store = SessionStore(directory: weak.directory, kdf: stronger)
    try store.withLockedStore(passphrase: secret("correct horse")) { c throws(SessionStoreError) in
        try c.rename("bob", to: "robert")
    }
    let header = try StoreHeader.parse(try #require(fileBytes(store.path)))
    #expect(header.kdf == stronger)
    #expect(try weak.read(passphrase: secret("correct horse")).find(name: "robert") != nil)
}

@Test func passwdReKeysWithANewSalt() throws {
    let scratch = ScratchDirectory()
    let (store, before) = try populatedStore(scratch)
    #expect(throws: SessionStoreError.wrongPassphrase) {
        try store.passwd(old: secret("wrong"), new: secret("new one"))
    }
    #expect(fileBytes(store.path) == before)
    try store.passwd(old: secret("correct horse"), new: secret("new one"))
    let after = try #require(fileBytes(store.path))
    #expect(try StoreHeader.parse(before).salt != StoreHeader.parse(after).salt)
    #expect(throws: SessionStoreError.wrongPassphrase) { try store.read(passphrase: secret("correct horse")) }
    #expect(try store.read(passphrase: secret("new one")).list().count == 2)
}

@Test func eraseRemovesTheStoreAndTheLockFile() throws {
    let scratch = ScratchDirectory()
    let (store, _) = try populatedStore(scratch)
    #expect(FileIO.exists(store.lockPath))
    try store.erase()
    #expect(!store.exists)
    #expect(!FileIO.exists(store.lockPath))
    #expect(try store.read(passphrase: secret("anything")).list().isEmpty)
    try store.erase()  // erasing nothing is fine
}

@Test func defaultDirectoryFollowsXDGThenHome() {
    #expect(SessionStore.defaultDirectory(environment: ["XDG_DATA_HOME": "/x/data", "HOME": "/h"]) == "/x/data/chatcli")
    #expect(SessionStore.defaultDirectory(environment: ["XDG_DATA_HOME": "rel", "HOME": "/h"]) == "/h/.local/share/chatcli")
    #expect(SessionStore.defaultDirectory(environment: [:]) == nil)
}

@Test func everyErrorHasItsOwnSentence() {
    let all: [SessionStoreError] = [
        .wrongPassphrase, .tampered, .truncated, .corrupted(reason: "r"), .newerVersion(2), .noSpace(path: "p"),
        .permissionDenied(path: "p"), .io(operation: "o", path: "p", errno: 5), .lockTimeout(path: "p"),
        .keyDerivationFailed, .nameInUse("n"), .unknownSession("n"), .invalidName("n"), .passphraseUnavailable,
        .passphraseCancelled, .passphraseMismatch, .passphraseEmpty, .passphraseTooLong(max: 1),
    ]
    #expect(Set(all.map(\.description)).count == all.count)
    #expect(SessionStoreError.newerVersion(3).description == "this store was written by a newer chatcli (format 3); upgrade chatcli")
    #expect(SessionStoreError.noSpace(path: "p").description.contains("your sessions are unchanged"))
}

@Test func theDefaultInteractiveCostWorksEndToEnd() throws {
    // One real Argon2id run at 64 MiB (about 0.1 s per derivation).
    let scratch = ScratchDirectory()
    let store = SessionStore(directory: scratch.path + "/chatcli")
    try store.withLockedStore(passphrase: secret("pw")) { c throws(SessionStoreError) in try c.add(sampleRecord()) }
    #expect(try StoreHeader.parse(try #require(fileBytes(store.path))).kdf == .interactive)
    #expect(try store.read(passphrase: secret("pw")).list() == [sampleRecord()])
}

@Test func aSessionsIdentityAndPinnedPeerRoundTripAndOldRecordsHaveNone() throws {
    var record = sampleRecord("pinned")
    #expect(SessionRecord(json: record.json)?.identity == nil, "a record saved before identities were kept")
    record.identity = SessionRecord.Identity(certificate: [1, 2, 3], privateKey: [4, 5, 6])
    record.peer = SessionRecord.PinnedPeer(fingerprint: Array(repeating: 7, count: 32), provenByCode: true)
    #expect(SessionRecord(json: record.json) == record)
    let scratch = ScratchDirectory()
    let store = makeStore(scratch)
    try store.withLockedStore(passphrase: secret("pw")) { c throws(SessionStoreError) in try c.add(record) }
    #expect(try store.read(passphrase: secret("pw")).find(name: "pinned") == record)
    // A pinned fingerprint that is not 32 bytes is a damaged record.
    guard case .object(var members) = record.json else { Issue.record("not an object"); return }
    members.removeAll { $0.0 == "peer" }
    members.append(("peer", .object([("fingerprint", .string("AAEC")), ("provenByCode", .bool(true))])))
    #expect(SessionRecord(json: .object(members)) == nil)
}

@Test func aPeerVerifiedByTheSafetyWordsRoundTripsAndOlderPinsAreNotVerified() throws {
    var record = sampleRecord("words")
    record.peer = SessionRecord.PinnedPeer(fingerprint: Array(repeating: 9, count: 32), provenByCode: false, verifiedByWords: true)
    #expect(SessionRecord(json: record.json) == record)
    let scratch = ScratchDirectory()
    let store = makeStore(scratch)
    try store.withLockedStore(passphrase: secret("pw")) { c throws(SessionStoreError) in try c.add(record) }
    #expect(try store.read(passphrase: secret("pw")).find(name: "words")?.peer?.verifiedByWords == true)
    guard case .object(var members) = record.json else { Issue.record("not an object"); return }
    members.removeAll { $0.0 == "peer" }
    let fingerprint = JSON.string(Base64.encode(Array(repeating: 9, count: 32)))
    // A pin saved before `/verify ok` was kept: not verified.
    members.append(("peer", .object([("fingerprint", fingerprint), ("provenByCode", .bool(false))])))
    #expect(SessionRecord(json: .object(members))?.peer == SessionRecord.PinnedPeer(fingerprint: Array(repeating: 9, count: 32), provenByCode: false))
    // Anything but a boolean is a damaged record.
    members.removeLast()
    members.append(("peer", .object([("fingerprint", fingerprint), ("provenByCode", .bool(false)), ("verifiedByWords", .string("yes"))])))
    #expect(SessionRecord(json: .object(members)) == nil)
}
