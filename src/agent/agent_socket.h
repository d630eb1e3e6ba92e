// The agent's listening socket and who may talk to it.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/status.h"
#include "sys/unique_fd.h"

namespace agentbox {

// kContainer: removes a stale file at `path` (a socket left by an earlier run of the box), binds
// a unix stream socket there with `mode` (0600: only the sandbox's uid, which the host side
// reaches as root) and listens. CLOEXEC.
StatusOr<UniqueFd> BindListeningSocket(const std::string& path, mode_t mode = 0600);

// kContainer over TCP: a TCP socket listening on "HOST:PORT" (proto/agent_hello.h
// ParseTcpAddress), SO_REUSEADDR, CLOEXEC.
StatusOr<UniqueFd> BindTcpListeningSocket(const std::string& host_port);

// A TCP peer on this machine's network namespace: loopback, or any address of one of its
// interfaces. In a pod that is the sandbox's own commands (they share its network), which may
// read the token file (same uid as the agent): such a connection is refused before its hello.
bool IsPeerInOurNetwork(int conn_fd);

// The pid of the process that connected conn_fd, as seen from the agent's PID namespace
// (SO_PEERCRED): 0 when the peer lives outside it, which only the host does; every process of
// the sandbox has a pid here. -1 when the kernel cannot tell.
pid_t PeerPidInOurNamespace(int conn_fd);

// True for a peer pid that can only be the host (see agent_socket.cc): 0, or 1 under gVisor.
bool IsHostPeer(pid_t peer);

}  // namespace agentbox
