// Shared test helpers: temporary directories, a test PKI (TestCertificates)
// and EventLoop.run(timeout:) for tests that drive the real loop.
