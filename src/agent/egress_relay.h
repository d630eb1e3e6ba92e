// The egress relay: how the host's egress proxy (egress/proxy.h) serves a sandbox whose network
// it cannot enter. Under gVisor (docker --runtime runsc) the sandbox's network stack is the
// Sentry's, not a kernel namespace the host can setns() into and listen in, and the sandbox may
// not connect to a socket of the host (runsc runs with --host-uds=create): only the host may
// connect to a unix socket made inside. So a child of the agent's PID 1 listens on one
// (`--egress-relay PATH`, bound by PID 1 before the host seals the run dir) and, per exec:
//
//   host (root): "listen" -> a TCP listener on the sandbox's 127.0.0.1:PORT (the exec's
//                HTTP_PROXY port), owned by that connection, which the host hands to the proxy
//   proxy:       keeps a few connections parked on it ("park ID"); a command's connection to
//                PORT takes the oldest, which is told ("c"), and the relay copies bytes both ways
//
// On kubernetes the host is not on the pod's network at all (the proxy runs on the CLI's machine
// or in serve's pod): the same relay runs with `--egress-relay-tcp`, and the host reaches it on
// the agent's TCP port with a hello for it carrying the sandbox's token, which PID 1 checks and
// then hands the connection over (no socket of its own exists that a command could reach).
//
// So the proxy sees each client connection as a stream of its own and treats it exactly as one
// it accepted (proto/relay_wire.h has the lines). The relay decides nothing: every check is the
// proxy's. It talks only to host peers (agent/agent_socket.h IsHostPeer; on kubernetes only to
// connections PID 1 passed its TCP hello gate with the sandbox's token). Bounded: 256 listeners,
// 16 parked per listener, 512 relayed connections with two 64 KiB buffers each, 64 host
// connections awaiting their line; one thread. A listener, its parked and relayed connections
// close with its owner, so with the exec. A command can kill the relay (same uid): PID 1 starts
// another on the same socket, and the execs that were open lose their egress.
#pragma once

namespace agentbox {

// Serves `listen_fd` for ever: a listening unix stream socket (gVisor), or with handed_over
// (kubernetes) PID 1's socketpair end on which it sends each host connection (SCM_RIGHTS, one
// byte with it) whose hello asked for the relay with the sandbox's token: a pod's commands run
// as the agent's uid, so a socket in the pod's filesystem would be theirs to connect to, where
// a socketpair's ends are only PID 1's and the relay's.
[[noreturn]] void RunEgressRelay(int listen_fd, bool handed_over);

}  // namespace agentbox
