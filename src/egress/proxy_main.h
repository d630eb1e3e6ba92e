// `agentbox egress-proxy`: the proxy process of one sandbox (egress/proxy.h), started by
// egress/proxy_process.h and never by a user. Its fd 3 is the control socket (listening for a
// persistent sandbox, connected for `run`), fd 4 when given a pidfd of the sandbox's PID 1, fd 5
// when given an O_PATH fd of the directory of the sandbox's egress relay socket (gVisor), or on
// kubernetes the read end of a pipe that holds the sandbox's token (--relay-token-fd) with the
// pod's agent address (--relay-tcp tcp:HOST:PORT): the relay is reached there
// (egress/relay_dial.h).
//
//   agentbox egress-proxy [--listening] [--watch-fd 4] [--relay-dir-fd 5 |
//                         --relay-tcp tcp:HOST:PORT --relay-token-fd 5] --connections N
//                         --bytes N [--allow P]...
//
// $AGENTBOX_EGRESS_HOSTS_FILE (read once, before the drop below) names a hosts file whose names
// are answered before /etc/hosts and DNS: how the tests give names to their loopback servers
// without touching the host's /etc/hosts. It comes from the environment of whoever started
// agentbox (the operator's), never from a sandbox or a tenant.
//
// Before it serves, it drops to an unprivileged id of its own (kEgressProxyHostId: no sandbox's
// processes have it, so none can signal it), with no capabilities and no_new_privs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace agentbox::egress {

inline constexpr std::string_view kEgressProxyCommand = "egress-proxy";
inline constexpr uint32_t kEgressProxyHostId = 3'900'002'000u;
inline constexpr const char* kEgressHostsFileEnv = "AGENTBOX_EGRESS_HOSTS_FILE";

// Returns the process's exit status: 0 when its sandbox ended, 2 for bad arguments, 1 otherwise.
int EgressProxyMain(const std::vector<std::string>& args);

}  // namespace agentbox::egress
