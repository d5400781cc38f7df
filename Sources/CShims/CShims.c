#define _GNU_SOURCE
#include "CShims.h"
#include <errno.h>
#include <string.h>
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

#include <netinet/udp.h>
#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

int cshims_sendmmsg_segmented(int fd, struct iovec *iov, struct sockaddr_storage *addrs, const socklen_t *addrlens, const uint16_t *segments, unsigned count) {
    struct mmsghdr msgs[64];
    union { char bytes[CMSG_SPACE(sizeof(uint16_t))]; struct cmsghdr align; } control[64];
    if (count > 64) count = 64;
    memset(msgs, 0, sizeof(struct mmsghdr) * count);
    for (unsigned i = 0; i < count; i++) {
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        msgs[i].msg_hdr.msg_name = &addrs[i];
        msgs[i].msg_hdr.msg_namelen = addrlens[i];
        if (segments != NULL && segments[i] > 0) {
            memset(&control[i], 0, sizeof(control[i]));
            msgs[i].msg_hdr.msg_control = control[i].bytes;
            msgs[i].msg_hdr.msg_controllen = sizeof(control[i].bytes);
            struct cmsghdr *cm = CMSG_FIRSTHDR(&msgs[i].msg_hdr);
            cm->cmsg_level = SOL_UDP;
            cm->cmsg_type = UDP_SEGMENT;
            cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
            memcpy(CMSG_DATA(cm), &segments[i], sizeof(uint16_t));
        }
    }
    return sendmmsg(fd, msgs, count, MSG_NOSIGNAL);
}

int cshims_enable_udp_gro(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof(on));
}

int cshims_recvmmsg_segmented(int fd, struct iovec *iov, struct sockaddr_storage *addrs, socklen_t *addrlens, size_t *lengths, uint16_t *segments, unsigned count) {
    struct mmsghdr msgs[64];
    union { char bytes[CMSG_SPACE(sizeof(int)) * 2]; struct cmsghdr align; } control[64];
    if (count > 64) count = 64;
    memset(msgs, 0, sizeof(struct mmsghdr) * count);
    for (unsigned i = 0; i < count; i++) {
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        msgs[i].msg_hdr.msg_name = &addrs[i];
        msgs[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_storage);
        msgs[i].msg_hdr.msg_control = control[i].bytes;
        msgs[i].msg_hdr.msg_controllen = sizeof(control[i].bytes);
    }
    int n = recvmmsg(fd, msgs, count, MSG_DONTWAIT, NULL);
    for (int i = 0; i < n; i++) {
        lengths[i] = msgs[i].msg_len;
        addrlens[i] = msgs[i].msg_hdr.msg_namelen;
        segments[i] = 0;
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msgs[i].msg_hdr); cm; cm = CMSG_NXTHDR(&msgs[i].msg_hdr, cm)) {
            if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO && cm->cmsg_len >= CMSG_LEN(sizeof(uint16_t))) {
                int size = 0;
                if (cm->cmsg_len >= CMSG_LEN(sizeof(int))) memcpy(&size, CMSG_DATA(cm), sizeof(int));
                else { uint16_t s16; memcpy(&s16, CMSG_DATA(cm), sizeof(s16)); size = s16; }
                if (size > 0 && size < 65536 && (size_t)size < lengths[i]) segments[i] = (uint16_t)size;
            }
        }
    }
    return n;
}

#if defined(__x86_64__)
#include <nmmintrin.h>

int cshims_crc32c_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

__attribute__((target("sse4.2")))
uint32_t cshims_crc32c_update(uint32_t crc, const uint8_t *bytes, size_t count) {
    uint64_t c = crc;
    while (count > 0 && ((uintptr_t)bytes & 7) != 0) { c = _mm_crc32_u8((uint32_t)c, *bytes++); count--; }
    while (count >= 8) { uint64_t w; memcpy(&w, bytes, 8); c = _mm_crc32_u64(c, w); bytes += 8; count -= 8; }
    while (count > 0) { c = _mm_crc32_u8((uint32_t)c, *bytes++); count--; }
    return (uint32_t)c;
}

#elif defined(__aarch64__)
#include <sys/auxv.h>
#include <asm/hwcap.h>
#include <arm_acle.h>

int cshims_crc32c_available(void) { return (getauxval(AT_HWCAP) & HWCAP_CRC32) ? 1 : 0; }

__attribute__((target("crc")))
uint32_t cshims_crc32c_update(uint32_t crc, const uint8_t *bytes, size_t count) {
    while (count >= 8) { uint64_t w; memcpy(&w, bytes, 8); crc = __crc32cd(crc, w); bytes += 8; count -= 8; }
    while (count > 0) { crc = __crc32cb(crc, *bytes++); count--; }
    return crc;
}

#else
int cshims_crc32c_available(void) { return 0; }
uint32_t cshims_crc32c_update(uint32_t crc, const uint8_t *bytes, size_t count) { (void)bytes; (void)count; return crc; }
#endif
