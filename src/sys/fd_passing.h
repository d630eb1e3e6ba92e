// One message with one file descriptor riding along (SCM_RIGHTS), both ways, on a unix socket.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace agentbox::sys {

// sendmsg of [data, data + size) with `fd` attached (MSG_NOSIGNAL, EINTR retried). Returns what
// sendmsg returns: the bytes sent, or -1 with errno.
ssize_t SendWithFd(int sock, const void* data, size_t size, int fd);

// recvmsg into [data, data + size) with MSG_CMSG_CLOEXEC plus `flags`, EINTR retried. *fd is
// the descriptor that came along, or -1 if none did. Returns what recvmsg returns.
ssize_t ReceiveWithFd(int sock, void* data, size_t size, int* fd, int flags = 0);

}  // namespace agentbox::sys
