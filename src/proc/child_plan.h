// ChildPlan: everything the cloned child needs, computed by the parent before clone.
//
// The child only executes: it reads this struct (its own copy-on-write copy of the parent's
// memory), never allocates, logs or throws, and reports a failure as one ChildError record on a
// CLOEXEC pipe before _exit. EOF on that pipe without a record means exec succeeded.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "policy/mount_plan.h"
#include "policy/seccomp_program.h"

namespace agentbox {

// Where the child mounts the new root before pivot_root. Any existing host directory works, since
// the child has its own mount namespace; mount sources are opened before it is covered.
inline constexpr const char* kNewRootMountpoint = "/tmp";

// The box: what the child builds before any command. The whole sandbox for the native backend
// (its root, from the parent's detached trees); an agent's native exec adds only its own /proc;
// a container exec builds nothing (mounts null).
struct BoxSetup {
  const MountPlan* mounts = nullptr;
  std::vector<std::string> full_targets;   // kNewRootMountpoint + op.target, one per op
  std::vector<std::string> tmpfs_options;  // "size=N,mode=M" per op ("" for non-tmpfs)
  std::vector<int> source_trees;    // detached trees by op (-1: none), see native/mount_trees.h
  std::vector<char> source_is_dir;  // mount point kind for each source tree
  std::string dev_null_path;        // the new root's /dev/null, for masking files
  const struct MountSyscalls* mount_syscalls = nullptr;  // null: the kernel's (unit tests: a fake)

  bool become_namespace_root = false;  // uid/gid 0 are mapped: do the setup as root inside
  // clock_start (proc/time_namespace.h): the offsets of a time namespace for the commands; ""
  // for none (the host's clocks).
  std::string timens_offsets;

  // Persistent sandboxes: instead of a command, PID 1 execs the agent from this fd (opened on
  // the host, so the agent need not exist inside the root) with the command's argv, envp and
  // stdio, keeping agent_keep_fd open for it.
  int agent_exec_fd = -1;
  int agent_keep_fd = -1;  // the listening socket, handed to the agent as fd 3
};

// The command: who it runs as, what it may call, what it gets, and how its init holds its tree.
struct CommandLaunch {
  uint32_t uid = 1000, gid = 1000;  // the command's ids inside
  // false in a box agentbox did not build (docker): the process already is uid/gid `uid`/`gid`
  // with no capabilities and no privilege to change ids; the hardening then only checks the ids
  // and clears the capability sets (which needs no privilege).
  bool change_identity = true;
  // No PID namespace whose init's death kills the tree (docker): the init is a subreaper of the
  // command's tree (PR_SET_CHILD_SUBREAPER) and, when the command exits, kills and reaps every
  // process left (proc/process_tree.h) before it reports.
  bool init_is_subreaper = false;

  std::string cwd;
  std::vector<char*> argv;  // null-terminated, pointing into the parent's strings
  std::vector<char*> envp;  // null-terminated
  // The filter. With a listener channel, `seccomp` is attached with a user-notification
  // listener the init sends to the supervisor (proc/seccomp_listener.h), or
  // `seccomp_without_listener` where the kernel gives none; without one, `seccomp` as it is.
  const std::vector<BpfInstruction>* seccomp = nullptr;
  const std::vector<BpfInstruction>* seccomp_without_listener = nullptr;
  uint64_t rlimit_nofile = 1024;  // 0 = keep the inherited limit

  int stdin_fd = -1;
  // stdin, stdout and stderr are one PTY's slave (exec -t): the command makes it its
  // controlling terminal, so Ctrl-C and a resize reach its foreground process group.
  bool controlling_tty = false;
  int stdout_write = -1;
  int stderr_write = -1;
  int status_write = -1;  // the init writes its InitReport here
  // A prepared exec init (proc/exec_go.h): once hardened it waits here for the request's cwd,
  // argv, envp and stdin, which are unset until then. -1: they are set already.
  int go_fd = -1;
  // The seccomp listener's channel (proc/seccomp_listener.h): the init sends the filter's
  // listener on it when it hardens, then closes it. -1: no listener.
  int listener_channel = -1;
};

// Everything the cloned child needs: the box, the command, and its link to the parent. The child
// writes to it only what a prepared init receives (exec_go.h) and the fds it closes.
struct ChildPlan {
  BoxSetup box;
  CommandLaunch command;

  bool can_setgroups = false;   // false for unprivileged callers (setgroups "deny")
  bool die_with_parent = true;  // false for persistent sandboxes, which outlive the CLI
  // The parent writes one byte once uid maps and cgroups are in place, then keeps the pipe open
  // while it lives: a hang-up = it died.
  int sync_read = -1;
  int error_write = -1;  // ChildError records (CLOEXEC: EOF without one = the exec succeeded)
};

// The strings a plan's argv and envp point into. They must outlive the clone: the child's copy of
// the parent's memory has them at the same addresses.
struct CommandStrings {
  std::vector<std::string> argv;
  std::vector<std::string> env;
};
// Sets command.argv and command.envp, null-terminated, pointing into `strings`.
void PointAtCommand(CommandStrings& strings, CommandLaunch& command);

enum class ChildStep : int32_t {
  kSync = 1,
  kIdentity,
  kCgroupNamespace,
  kMakePrivate,
  kRootTmpfs,
  kMount,
  kHostname,
  kLoopback,
  kPivotRoot,
  kRlimits,
  kSubreaper,
  kFork,
  kCwd,
  kDropPrivileges,
  kNoNewPrivs,
  kSeccomp,
  kExec,
  kTimeNamespace,
};
const char* ChildStepName(ChildStep step);

// What the init writes on status_write when the command ends. By then every other process of
// the command's tree is killed and reaped, so the report alone says the exec is over.
struct InitReport {
  int32_t command_status;  // raw wait status of the command
  int64_t cpu_us;          // user + system time of every process of the tree (RUSAGE_CHILDREN)
  int64_t max_rss_kb;      // the largest of them
  int64_t written_bytes;   // what they dirtied in files on storage (ru_oublock, 512-byte units)
  // Pids the init's PID namespace handed out while the command ran (its ns_last_pid before and
  // after): processes and threads started. -1 when it cannot be read (gVisor).
  int64_t pids_started;
};

struct ChildError {
  ChildStep step;
  int32_t err;       // errno
  char detail[240];  // e.g. the mount target; NUL-terminated
};

}  // namespace agentbox
