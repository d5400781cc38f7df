import Dispatch
import Foundation
import TestSupport
import Glibc
import Synchronization
import Testing

@testable import SessionStore

@Test func storeIsMode0600InADirectoryOf0700() throws {
    let scratch = ScratchDirectory()
    let old = umask(0)  // even a permissive umask must not loosen the modes
    defer { umask(old) }
    let (store, _) = try populatedStore(scratch)
    #expect(fileMode(store.path) == 0o600)
    #expect(fileMode(store.directory) == 0o700)
    #expect(fileMode(store.lockPath) == 0o600)
}

@Test func aLooseChatcliDirectoryIsTightened() throws {
    let scratch = ScratchDirectory()
    let store = makeStore(scratch)
    mkdir(store.directory, 0o755)
    chmod(store.directory, 0o755)
    try store.withLockedStore(passphrase: secret("pw")) { c throws(SessionStoreError) in try c.add(sampleRecord()) }
    #expect(fileMode(store.directory) == 0o700)
}

@Test func aCrashBetweenWriteAndRenameLeavesTheOldFile() throws {
    let scratch = ScratchDirectory()
    let (store, before) = try populatedStore(scratch)
    let (contents, keying) = try StoreFormat.open(before, passphrase: secret("correct horse"))
    var changed = contents
    try changed.remove(name: "alice")
    // "Crash": the temp file is written and fsynced, the rename never happens.
    let temp = try FileIO.writeTemp(StoreFormat.seal(changed, keying: keying), for: store.path)
    #expect(FileIO.exists(temp))
    #expect(fileBytes(store.path) == before)
    #expect(try store.read(passphrase: secret("correct horse")).list().count == 2)
    // The next locked transaction removes the stale temp file.
    try store.withLockedStore(passphrase: secret("correct horse")) { c throws(SessionStoreError) in
        try c.rename("bob", to: "robert")
    }
    #expect(!FileIO.exists(temp))
    let after = try store.read(passphrase: secret("correct horse"))
    #expect(after.find(name: "alice") != nil && after.find(name: "robert") != nil)
}

@Test func concurrentLockedIncrementsLoseNoUpdate() throws {
    let scratch = ScratchDirectory()
    let store = makeStore(scratch, lockTimeout: 60)
    let workers = 4
    let perWorker = 6
    let failures = Mutex<[String]>([])
    let group = DispatchGroup()
    for w in 0..<workers {
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            for i in 0..<perWorker {
                do {
                    // Each transaction is read → modify → write; a lost update would drop a record.
                    try store.withLockedStore(passphrase: secret("pw")) { c throws(SessionStoreError) in
                        try c.add(sampleRecord("w\(w)-\(i)"))
                    }
                } catch {
                    failures.withLock { $0.append("\(w)/\(i): \(error)") }
                }
            }
        }
    }
    group.wait()
    #expect(failures.withLock { $0 } == [])
    #expect(try store.read(passphrase: secret("pw")).list().count == workers * perWorker)
}

@Test func theLockExcludesOtherProcesses() throws {
    let scratch = ScratchDirectory()
    let (store, _) = try populatedStore(scratch)
    func otherProcessGetsLock() throws -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        p.arguments = ["-n", store.lockPath, "true"]
        try p.runSerialized()
        p.waitUntilExit()
        return p.terminationStatus == 0
    }
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/flock") else { return }  // util-linux absent
    var heldElsewhere = true
    try store.withLockedStore(passphrase: secret("correct horse")) { _ throws(SessionStoreError) in
        heldElsewhere = (try? otherProcessGetsLock()) ?? true
    }
    #expect(heldElsewhere == false)
    #expect(try otherProcessGetsLock())
}

@Test func aHeldLockTimesOutWithItsOwnError() throws {
    let scratch = ScratchDirectory()
    let (store, before) = try populatedStore(scratch)
    let holder = try FileLock(path: store.lockPath, exclusive: true, timeout: 0)
    let impatient = SessionStore(directory: store.directory, kdf: .minimum, lockTimeout: 0)
    #expect(throws: SessionStoreError.lockTimeout(path: store.lockPath)) {
        try impatient.withLockedStore(passphrase: secret("correct horse")) { c throws(SessionStoreError) in
            try c.remove(name: "alice")
        }
    }
    #expect(throws: SessionStoreError.lockTimeout(path: store.lockPath)) {
        try impatient.read(passphrase: secret("correct horse"))
    }
    withExtendedLifetime(holder) {}
    #expect(fileBytes(store.path) == before)
}

@Test func errnoMapsToActionableErrors() {
    #expect(SessionStoreError.fromErrno(ENOSPC, operation: "write", path: "/p") == .noSpace(path: "/p"))
    #expect(SessionStoreError.fromErrno(EDQUOT, operation: "write", path: "/p") == .noSpace(path: "/p"))
    #expect(SessionStoreError.fromErrno(EACCES, operation: "open", path: "/p") == .permissionDenied(path: "/p"))
    #expect(SessionStoreError.fromErrno(EROFS, operation: "create", path: "/p") == .permissionDenied(path: "/p"))
    #expect(SessionStoreError.fromErrno(EIO, operation: "fsync", path: "/p") == .io(operation: "fsync", path: "/p", errno: EIO))
    #expect(SessionStoreError.noSpace(path: "/p").description
        == "no space left on the device holding /p; your sessions are unchanged")
}

/// Mounts a tiny tmpfs (root only); nil when that is not possible here.
private func mountTmpfs(at path: String, options: String) -> Bool {
    guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/bin/mount") else { return false }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/mount")
    p.arguments = ["-t", "tmpfs", "-o", options, "tmpfs", path]
    p.standardError = FileHandle.nullDevice
    guard (try? p.runSerialized()) != nil else { return false }
    p.waitUntilExit()
    return p.terminationStatus == 0
}

private func unmount(_ path: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/umount")
    p.arguments = [path]
    try? p.runSerialized()
    p.waitUntilExit()
}

@Test func aFullDiskLeavesTheOldStoreAndSaysSo() throws {
    let scratch = ScratchDirectory()
    let mountPoint = scratch.path + "/small"
    mkdir(mountPoint, 0o700)
    guard mountTmpfs(at: mountPoint, options: "size=64k,mode=0700") else { return }  // needs root + mount
    defer { unmount(mountPoint) }
    let store = SessionStore(directory: mountPoint + "/chatcli", kdf: .minimum)
    try store.withLockedStore(passphrase: secret("pw")) { c throws(SessionStoreError) in try c.add(sampleRecord()) }
    let before = try #require(fileBytes(store.path))
    // Fill the file system.
    let filler = open(mountPoint + "/filler", O_WRONLY | O_CREAT, 0o600)
    let block = [UInt8](repeating: 0xAB, count: 4096)
    while block.withUnsafeBytes({ write(filler, $0.baseAddress, $0.count) }) > 0 {}
    close(filler)
    #expect(throws: SessionStoreError.noSpace(path: store.path)) {
        try store.withLockedStore(passphrase: secret("pw")) { c throws(SessionStoreError) in
            try c.add(sampleRecord("second"))
        }
    }
    #expect(fileBytes(store.path) == before)
    #expect(try store.read(passphrase: secret("pw")).list() == [sampleRecord()])
    // No temp file is left behind.
    let names = try FileManager.default.contentsOfDirectory(atPath: store.directory)
    #expect(names.sorted() == ["sessions.lock", "sessions.v1"])
}

@Test func aReadOnlyFileSystemIsAPermissionError() throws {
    let scratch = ScratchDirectory()
    let mountPoint = scratch.path + "/ro"
    mkdir(mountPoint, 0o700)
    guard mountTmpfs(at: mountPoint, options: "size=64k,mode=0700") else { return }
    defer { unmount(mountPoint) }
    let store = SessionStore(directory: mountPoint + "/chatcli", kdf: .minimum)
    try store.withLockedStore(passphrase: secret("pw")) { c throws(SessionStoreError) in try c.add(sampleRecord()) }
    let remount = Process()
    remount.executableURL = URL(fileURLWithPath: "/bin/mount")
    remount.arguments = ["-o", "remount,ro", mountPoint]
    try remount.runSerialized()
    remount.waitUntilExit()
    guard remount.terminationStatus == 0 else { return }
    do {
        try store.withLockedStore(passphrase: secret("pw")) { c throws(SessionStoreError) in
            try c.add(sampleRecord("second"))
        }
        Issue.record("write on a read-only file system succeeded")
    } catch {
        #expect(error == .permissionDenied(path: store.lockPath))
    }
    // Reading still works: the shared lock only needs a read-only descriptor.
    #expect(try store.read(passphrase: secret("pw")).list() == [sampleRecord()])
}

@Test func anUnreadableStoreIsAPermissionError() throws {
    guard geteuid() != 0 else { return }  // root reads anything; covered by the read-only mount test
    let scratch = ScratchDirectory()
    let (store, _) = try populatedStore(scratch)
    chmod(store.path, 0)
    #expect(throws: SessionStoreError.permissionDenied(path: store.path)) {
        try store.read(passphrase: secret("correct horse"))
    }
}
