#define _GNU_SOURCE
#include "CShims.h"
#include <errno.h>
#include <unistd.h>
#include <sys/time.h>
#include <openssl/bio.h>

long cshims_SSL_set_tlsext_host_name(SSL *ssl, const char *name) { return SSL_set_tlsext_host_name(ssl, name); }
long cshims_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
long cshims_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) { return SSL_CTX_set_min_proto_version(ctx, version); }
long cshims_BIO_get_mem_data(BIO *bio, char **out) { return BIO_get_mem_data(bio, out); }
long cshims_DTLSv1_get_timeout(SSL *ssl, struct timeval *tv) { return DTLSv1_get_timeout(ssl, tv); }
long cshims_DTLSv1_handle_timeout(SSL *ssl) { return DTLSv1_handle_timeout(ssl); }
long cshims_SSL_set_mtu(SSL *ssl, long mtu) { return SSL_set_mtu(ssl, mtu); }
int cshims_SSL_ERROR_WANT_READ(void) { return SSL_ERROR_WANT_READ; }
long cshims_DTLS_set_link_mtu(SSL *ssl, long mtu) { return DTLS_set_link_mtu(ssl, mtu); }
long cshims_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) { return SSL_CTX_set_max_proto_version(ctx, version); }
long cshims_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list) { return SSL_CTX_set1_groups_list(ctx, list); }
long cshims_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_session_cache_mode(ctx, mode); }
long cshims_SSL_SESS_CACHE_OFF(void) { return SSL_SESS_CACHE_OFF; }
uint64_t cshims_dtls_options(void) {
    return SSL_OP_NO_QUERY_MTU | SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION
        | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION | SSL_OP_NO_ENCRYPT_THEN_MAC;
}
void cshims_BIO_set_retry_read(BIO *bio) { BIO_set_retry_read(bio); }
void cshims_BIO_clear_retry_flags(BIO *bio) { BIO_clear_retry_flags(bio); }
sqlite3_destructor_type cshims_sqlite_transient(void) { return SQLITE_TRANSIENT; }
int cshims_errno(void) { return errno; }
int cshims_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) { return accept4(fd, addr, len, flags); }

int cshims_rl_point(void) { return rl_point; }
void cshims_rl_set_point(int point) { rl_point = point; }
int cshims_rl_end(void) { return rl_end; }
const char *cshims_rl_line_buffer(void) { return rl_line_buffer; }
void cshims_rl_set_catch_signals(int on) { rl_catch_signals = on; rl_catch_sigwinch = on; }
void cshims_rl_set_erase_empty_line(int on) { rl_erase_empty_line = on; }

int cshims_netlink_route_socket(void) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return -1;
    struct sockaddr_nl local = {0};
    local.nl_family = AF_NETLINK;
    local.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
    if (bind(fd, (struct sockaddr *)&local, sizeof local) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}
