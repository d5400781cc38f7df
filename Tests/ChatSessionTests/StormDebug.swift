import Testing
@Suite struct StormDebug {
    @Test func seed3() throws { Client.trace = true; try StormTests().storm(seed: 3) }
}
