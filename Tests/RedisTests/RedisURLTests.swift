import Redis
import Testing

@Test func redisURLsParse() {
    #expect(RedisURL("redis://127.0.0.1:6380/2") == RedisURL(host: "127.0.0.1", port: 6380, database: 2))
    #expect(RedisURL("redis://cache") == RedisURL(host: "cache"))
    #expect(RedisURL("rediss://app:s3cret@redis.example:6379") == RedisURL(tls: true, host: "redis.example", user: "app", password: "s3cret"))
    #expect(RedisURL("redis://:pw@[::1]:7000/0") == RedisURL(host: "::1", port: 7000, password: "pw"))
}

@Test func badRedisURLsAreRefused() {
    for text in ["http://x:1", "redis://", "redis://h:0", "redis://h:99999", "redis://h:1/x", "redis://h:1/-1", "redis://[::1", "redis://a b:1"] {
        #expect(RedisURL(text) == nil, "\(text)")
    }
}

@Test func redactedURLsHideThePassword() {
    #expect(RedisURL("rediss://app:s3cret@h:1/3")?.redacted == "rediss://app@h:1/3")
}
