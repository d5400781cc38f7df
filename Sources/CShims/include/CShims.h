// Macros and C globals that Swift cannot import directly, wrapped as functions.
#ifndef CSHIMS_H
#define CSHIMS_H

#include <openssl/ssl.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
// Linux-only headers that Swift's Glibc module does not export.
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>

// OpenSSL macros
long cshims_SSL_set_tlsext_host_name(SSL *ssl, const char *name);
long cshims_SSL_CTX_set_mode(SSL_CTX *ctx, long mode);
long cshims_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version);
long cshims_BIO_get_mem_data(BIO *bio, char **out);
long cshims_DTLSv1_get_timeout(SSL *ssl, struct timeval *tv);
long cshims_DTLSv1_handle_timeout(SSL *ssl);
long cshims_SSL_set_mtu(SSL *ssl, long mtu);
int cshims_SSL_ERROR_WANT_READ(void);

// DTLS (Sources/DTLS): macros around SSL_ctrl / SSL_CTX_ctrl and 64-bit option bits
long cshims_DTLS_set_link_mtu(SSL *ssl, long mtu);
long cshims_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version);
long cshims_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list);
long cshims_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode);
long cshims_SSL_SESS_CACHE_OFF(void);
/// SSL_OP_NO_QUERY_MTU | SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION |
/// SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION |
/// SSL_OP_NO_ENCRYPT_THEN_MAC (with it OpenSSL 3.0 fails a DTLS association on
/// one forged CBC record with a bad MAC instead of dropping the record)
uint64_t cshims_dtls_options(void);
/// BIO_set_retry_read / BIO_clear_retry_flags
void cshims_BIO_set_retry_read(BIO *bio);
void cshims_BIO_clear_retry_flags(BIO *bio);

// SQLite's SQLITE_TRANSIENT destructor constant
sqlite3_destructor_type cshims_sqlite_transient(void);

// accept4 is a GNU extension hidden from Swift's view of <sys/socket.h>
int cshims_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);

// A non-blocking NETLINK_ROUTE socket subscribed to address, route and link
// changes (RTMGRP_* macros); -1 with errno set on failure.
int cshims_netlink_route_socket(void);

// errno as a function (thread-local C global)
int cshims_errno(void);

// GNU readline globals
int cshims_rl_point(void);
void cshims_rl_set_point(int point);
int cshims_rl_end(void);
const char *cshims_rl_line_buffer(void);
void cshims_rl_set_catch_signals(int on);
void cshims_rl_set_erase_empty_line(int on);

// sendmmsg / recvmmsg (GNU extensions hidden from Swift), with UDP
// segmentation offload (Linux 4.18+): message i is iov[i] with address
// addrs[i] of addrlens[i] bytes; at most 64 per call. Sending, a message
// with segments[i] > 0 (segments may be NULL: none) carries a UDP_SEGMENT
// control message, so the kernel cuts iov[i] into datagrams of segments[i]
// bytes (the last may be shorter). Returns the number of messages sent, or
// -1 with errno set (EIO, EINVAL: this path or kernel refuses segmentation;
// send those datagrams one by one).
int cshims_sendmmsg_segmented(int fd, struct iovec *iov, struct sockaddr_storage *addrs, const socklen_t *addrlens, const uint16_t *segments, unsigned count);
// Receive offload: asks for UDP_GRO on fd (0, or -1 with errno set).
// cshims_recvmmsg_segmented (MSG_DONTWAIT) stores each message's length in
// lengths[i] and in segments[i] the size of the datagrams coalesced into it
// (0 if it is one datagram); it returns the number of messages, or -1.
int cshims_enable_udp_gro(int fd);
int cshims_recvmmsg_segmented(int fd, struct iovec *iov, struct sockaddr_storage *addrs, socklen_t *addrlens, size_t *lengths, uint16_t *segments, unsigned count);

// CRC32c (Castagnoli) in hardware: SSE4.2 CRC32 on x86-64, the CRC extension
// on AArch64. `cshims_crc32c_available` is 1 when this CPU has it (checked
// once at run time); `cshims_crc32c_update` continues a reflected CRC
// (no initial or final inversion here) and must only be called then.
int cshims_crc32c_available(void);
uint32_t cshims_crc32c_update(uint32_t crc, const uint8_t *bytes, size_t count);

#endif
