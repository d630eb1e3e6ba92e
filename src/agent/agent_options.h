// How agentbox-agent was started: in a box agentbox built itself, or in one it did not.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "proto/agent_protocol.h"
#include "spec/sandbox_spec.h"

namespace agentbox {

enum class AgentMode {
  // A native sandbox: agentbox built the box and exec'd the agent as its PID 1. The agent is root
  // of the sandbox's user namespace (with capabilities there), inherits its listening socket as
  // fd 3, gives each exec a PID and mount namespace of its own and switches ids itself.
  kNative,
  // A box built by someone else (the docker backend's container): the agent is PID 1 but already
  // uid/gid 1000 with no capabilities and no_new_privs, like its commands. It binds its socket
  // itself, and each exec's tree is held together by subreapers instead of a PID namespace.
  kContainer,
};

// kContainer's transport: the unix socket only the host can reach (docker), or TCP on the
// pod's network with a per-sandbox token (kubernetes, proto/agent_hello.h).

struct AgentOptions {
  AgentMode mode = AgentMode::kNative;
  std::string listen_path;  // kContainer: where to bind the listening socket
  // kContainer over TCP, `--listen-tcp HOST:PORT --token-file PATH` (instead of --listen): where
  // to listen, and the file whose token every connection's hello must carry.
  std::string listen_tcp;
  std::string token_file;
  std::string token;  // read from token_file once at start (ReadAgentToken)
  // --token-by-claim instead of --token-file: a pod of a shared SandboxTemplate (kubernetes,
  // SandboxClaim), which has no Secret of its own; the first claim hello sets the token
  // (agent/hello_gate.h), and nothing is served before it.
  bool token_by_claim = false;
  // --disk-watch: the workspace's disk limit is held by the kernel, and each exec reports an
  // allocation it refused (proc/fallocate_watch.h).
  bool disk_watch = false;
  // --random-seed N (policy random_seed): each exec's getrandom calls are answered from N's
  // stream (proc/getrandom_watch.h); absent: the kernel's randomness.
  std::optional<uint64_t> random_seed;
  // --clock-start SECONDS (container mode; policy clock_start): the agent makes the time
  // namespace its handlers and commands run in (proc/time_namespace.h). Native sandboxes get
  // theirs from the box's setup instead.
  std::optional<double> clock_start;
  // kContainer, --egress-relay PATH: the sandbox's egress relay listens there for the host's
  // egress proxy (agent/egress_relay.h); where the proxy cannot listen in the sandbox's network
  // itself (gVisor). "": no relay.
  std::string egress_relay_path;
  // kContainer over TCP, --egress-relay-tcp: the same relay, with no socket a command could
  // reach: PID 1 hands it each TCP connection whose hello asks for it (kubernetes).
  bool egress_relay_tcp = false;
  // --user UID:GID: who commands run as inside (agent/agent_user.h); absent: uid/gid 1000.
  SandboxUser user;
  // --open-files N (policy open_files, where the runtime cannot set a ulimit: a pod): each
  // exec's RLIMIT_NOFILE, soft and hard. 0: the limit the agent was started with stays (docker's
  // --ulimit, native's own setrlimit).
  uint64_t open_files = 0;
};

// `agentbox-agent` -> kNative; `agentbox-agent [--clock-start SECONDS] (--listen PATH
// [--egress-relay PATH] | --listen-tcp HOST:PORT (--token-file PATH | --token-by-claim)
// [--egress-relay-tcp])` ->
// kContainer; `--disk-watch`,
// `--user UID:GID`, `--random-seed N` and `--open-files N` may come first in either, in any
// order. Anything else is kInvalidArgument (the caller prints the usage and exits 2). args
// excludes argv[0].
StatusOr<AgentOptions> ParseAgentArgs(const std::vector<std::string>& args);

// With --token-file: reads the token into options->token, once, before anything listens.
// kInvalidArgument (the agent exits 2) when the file is missing, unreadable, empty or holds a
// token shorter than kAgentTokenMinBytes.
Status ReadAgentToken(AgentOptions* options);

inline constexpr const char* kAgentUsage =
    "usage: agentbox-agent [--disk-watch] [--user UID:GID] [--random-seed N] [--open-files N] "
    "[[--clock-start SECONDS] (--listen SOCKET_PATH [--egress-relay SOCKET_PATH] | "
    "--listen-tcp HOST:PORT (--token-file PATH | --token-by-claim) [--egress-relay-tcp])]";

}  // namespace agentbox
