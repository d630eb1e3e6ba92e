// The protocol between the host and the in-sandbox agent (PID 1 of every sandbox).
//
// One request per connection, over a unix SOCK_STREAM socket that only the host can reach.
// Everything is a frame: [u8 type][u32 little-endian length][payload]. The client sends one
// kRequest frame (JSON; for exec with stdin, the stdin fd rides along as SCM_RIGHTS), then for
// write_file the file bytes as kData frames; the agent answers with kStdout/kStderr/kData frames
// and always ends with exactly one kResponse frame (JSON). Closing the connection mid-exec kills
// the command's process tree.
//
// Requests ("op"):
//   ping                                   -> {"ok":true,"active_execs":N}
//   box_stats                              ->
//   {"ok":true,"stats":{peak_memory_bytes,cpu_ms,oom_kills,
//                                             memory_events,pids_events,throttled_periods,
//                                             memory_limit_bytes,pids_limit}}: the agent's own
//                                             cgroup's counters (proc/cgroup_stats_wire.h); read
//                                             only, on every backend (the kubernetes one asks)
//   exec  {argv,env:[[k,v]..],cwd,timeout_ms,output_limit,stdin:bool}
//         -> kStdout/kStderr frames (already capped at output_limit per stream), then
//            {"ok":true,"result":{exit_code,signal,reason,error?,duration_ms,cpu_ms,
//             peak_memory_bytes,stdout_truncated,stderr_truncated,limits_hit}}
//   read_file  {path,max_bytes}             -> kData frames, then {"ok":true,"size":N,"mode":M}
//   write_file {path,size,mode?,parents?}   (client then sends `size` bytes as kData frames)
//                                           -> {"ok":true}
//   list_dir   {path}                       -> {"ok":true,"entries":[{name,type,size,mode,mtime}]}
//   stat       {path}                       -> {"ok":true,"type":..,"size":..,"mode":..,"mtime":..}
//   mkdir      {path,parents?}              -> {"ok":true}
//   remove     {path,recursive?}            -> {"ok":true}
//   str_replace {path,old,new}              -> {"ok":true}   (old must occur exactly once)
//   exec {...,tty:true,rows,cols}: a PTY; while it runs the client sends kData frames (keystrokes;
//         an empty one: end of input) and kResize frames; output comes as kStdout frames only
//   exec {...,detach:true,interactive?}, ps, proc_logs, proc_wait, proc_kill, proc_stdin:
//                                           background processes, proto/process_wire.h
// In exec, an argv, env or cwd string that is not valid UTF-8 is sent as {"bytes":[n,...]}
// (JSON text must be UTF-8; arguments are bytes).
// Errors: {"ok":false,"code":"<StatusCodeName>","error":"one line"}.
// Paths are "/workspace/..." or relative to /workspace, resolved strictly beneath it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace agentbox {

// The agent's flag for a workspace whose disk limit the kernel holds: each exec's fallocate
// calls go through the agent, which reports one refused (proc/fallocate_watch.h). The host
// passes it; native `agentbox-agent [--disk-watch]`, docker `... [--disk-watch] --listen PATH`.
inline constexpr const char* kAgentDiskWatchFlag = "--disk-watch";
// The agent's flag for the user its commands, file operations and terminals run as inside,
// `--user UID:GID` (policy/image_user.h, SandboxUserText): an image's non-root User. Absent:
// uid/gid 1000. Before --listen, beside --disk-watch.
inline constexpr const char* kAgentUserFlag = "--user";
// The agent's flag for policy key random_seed, `--random-seed N` (a decimal uint64): each exec's
// getrandom calls are answered from N's stream (proc/getrandom_watch.h). Before --listen, beside
// --disk-watch, in both modes.
inline constexpr const char* kAgentRandomSeedFlag = "--random-seed";
// The agent's flag for policy key open_files where the box's runtime sets no ulimit (a pod:
// Kubernetes has no field for one), `--open-files N`: each exec's RLIMIT_NOFILE, soft and hard.
// Before --listen-tcp, beside --random-seed. docker's container gets its --ulimit instead, and a
// native box the agent's own limit.
inline constexpr const char* kAgentOpenFilesFlag = "--open-files";

// The request for the counters of the agent's own cgroup (proc/cgroup_stats_wire.h).
inline constexpr const char* kBoxStatsOp = "box_stats";

// The container agent's time namespace (policy clock_start): `--clock-start SECONDS`, before
// --listen (proc/time_namespace.h).
inline constexpr const char* kAgentClockStartFlag = "--clock-start";
// The container agent's egress relay (agent/egress_relay.h): `--egress-relay PATH` after
// `--listen PATH`; the socket is kEgressRelaySocketName in the agent's run dir.
inline constexpr const char* kAgentEgressRelayFlag = "--egress-relay";
inline constexpr const char* kEgressRelaySocketName = "egress-relay.sock";
// The TCP agent's egress relay (kubernetes): `--egress-relay-tcp` after `--token-file PATH`. No
// socket of its own: the host's egress proxy reaches it through the agent's TCP port with a
// hello for it (proto/agent_hello.h HelloTarget::kEgressRelay), which PID 1 hands over.
inline constexpr const char* kAgentEgressRelayTcpFlag = "--egress-relay-tcp";

enum class FrameType : uint8_t {
  kRequest = 'Q',
  kResponse = 'A',
  kStdout = 'O',
  kStderr = 'E',
  kData = 'D',
  kResize = 'W',  // a terminal exec's new window size, client to agent (proto/terminal_wire.h)
};

inline constexpr uint32_t kMaxFramePayload = 1u << 20;  // data streams are split into frames

struct Frame {
  FrameType type;
  std::string payload;
};

// Appends one frame's bytes to *out (payload at most kMaxFramePayload), for a writer that
// cannot block (agent/process_keeper.cc).
void AppendFrame(FrameType type, std::string_view payload, std::string* out);

// Writes one frame (all of it, retrying on EINTR). With pass_fd >= 0, that fd is sent as
// SCM_RIGHTS with the frame's first byte.
Status WriteFrame(int fd, FrameType type, std::string_view payload, int pass_fd = -1);

// Reads one frame. received_fd (if non-null) gets an fd passed with it, or -1. Returns
// kNotFound on a clean EOF before any byte, kInvalidArgument on a malformed frame (a request or
// response whose JSON is nested deeper, or holds longer numbers, than base/json_limits.h allows
// included).
StatusOr<Frame> ReadFrame(int fd, int* received_fd = nullptr);

// Parses a {"ok":false,"code":..,"error":..} response into a Status; OkStatus for ok:true.
Status ResponseStatus(const std::string& response_json);

}  // namespace agentbox
