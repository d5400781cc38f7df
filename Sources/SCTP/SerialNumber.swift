/// Serial-number arithmetic (RFC 1982) for TSNs and stream sequence numbers,
/// which wrap around and are compared within half their space.
@inline(__always) func tsnLess(_ a: UInt32, _ b: UInt32) -> Bool { Int32(bitPattern: a &- b) < 0 }
@inline(__always) func tsnLessOrEqual(_ a: UInt32, _ b: UInt32) -> Bool { Int32(bitPattern: a &- b) <= 0 }
@inline(__always) func ssnLess(_ a: UInt16, _ b: UInt16) -> Bool { Int16(bitPattern: a &- b) < 0 }
@inline(__always) func ssnLessOrEqual(_ a: UInt16, _ b: UInt16) -> Bool { Int16(bitPattern: a &- b) <= 0 }
