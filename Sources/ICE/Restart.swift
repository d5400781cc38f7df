/// ICE restart (RFC 8445 §9).
extension ICEAgent {
    /// New local credentials, a fresh check list and regathering on the
    /// same bases. The remote side's new credentials and candidates must be
    /// signalled again. Data keeps flowing on the previously selected pair
    /// until a new one is selected.
    public func restart(newCredentials: ICECredentials) {
        generation += 1
        localCredentials = newCredentials
        remoteCredentials = nil
        remoteCandidates = []
        bufferedRemoteCandidates = []
        remoteEnded = false
        checkList = CheckList()
        transactions = [:]
        transactionOrder = []
        nominationAt = nil
        nominatingPair = nil
        selectedID = nil
        consent = ConsentState()
        startedAt = now
        nextCheckAt = now
        state = .new
        emit(.stateChanged(.new))
        regather()
    }
}
