// The uid that owns the other end of a TCP connection on this host (a loopback client), asked of
// the kernel through NETLINK_SOCK_DIAG, as identd would. Over loopback every local user has the
// same address, so a per-address cap would let one user hold every connection of all of them.
#pragma once

#include <sys/types.h>

#include <optional>

namespace agentbox {

// The owner of the socket at the far end of the accepted TCP socket `fd`, if that socket is on
// this host (a loopback peer) and the kernel says; nullopt otherwise.
std::optional<uid_t> TcpPeerUid(int fd);

}  // namespace agentbox
