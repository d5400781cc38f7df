import HTTP1
import Signaling

/// What ``SignalingService`` needs from its REST side: ``RESTRouter`` over
/// the embedded room registry, or ``ClusterRouter`` over Redis. A request
/// either answers at once or is held (`.longPoll`) until
/// `pollCompletedLongPolls` hands its answer over or its deadline passes.
protocol RequestRouting: AnyObject {
    func handle(_ request: HTTPRequest, clientAddress: String, now: UnixTime) -> RouteResult
    func pollCompletedLongPolls() -> [(LongPollToken, HTTPResponse)]
    func longPollDeadlinePassed(_ token: LongPollToken, now: UnixTime) -> HTTPResponse?
    func cancelLongPoll(_ token: LongPollToken)
}

/// What ``SignalingService`` needs from its WebSocket side: ``SignalingHub``
/// in memory, or ``ClusterHub`` over Redis (which also delivers later,
/// through its own callbacks).
protocol SignalingRelay: AnyObject {
    func connect(_ connection: ConnectionID) -> [Outbound]
    func receive(_ connection: ConnectionID, text: String, now: UnixTime) -> [Outbound]
    func disconnect(_ connection: ConnectionID) -> [Outbound]
    func pollProbes() -> [ConnectionID]
}

extension RESTRouter: RequestRouting {}
extension SignalingHub: SignalingRelay {}
