import HTTP1
import Wire

/// A REST failure: the status and the `{"error": code}` body it is answered with.
public struct RESTError: Error, Equatable, Sendable {
    public var status: Int
    public var code: String
    public var headers: HTTPHeaders

    public init(_ status: Int, _ code: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.code = code
        self.headers = headers
    }

    public var response: HTTPResponse {
        var response = HTTPResponse.json(status, ["error": .string(code)])
        for field in headers.fields { response.headers.add(field.name, field.value) }
        return response
    }

    static let invalidJSON = RESTError(400, "invalid_json")
    static let notFound = RESTError(404, "not_found")
    static let notFoundOrExpired = RESTError(404, "not_found_or_expired")
    static let internalError = RESTError(500, "internal_error")
}

extension HTTPResponse {
    /// A JSON body with `Content-Type: application/json`. The HTTP layer
    /// adds `Content-Length` when it serializes the response.
    public static func json(_ status: Int, _ body: JSON) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body.serializedBytes)
    }

    /// `204 No Content`: no body and no content type.
    public static var noContent: HTTPResponse { HTTPResponse(status: 204) }

    /// `413 {"error":"body_too_large"}`, for the HTTP layer to send when a
    /// body exceeds `RESTRouter.maxBodyBytes` (answered, not reset).
    public static var bodyTooLarge: HTTPResponse { RESTError(413, "body_too_large").response }
}
