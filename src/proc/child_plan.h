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

struct ChildPlan {
  const MountPlan* mounts = nullptr;
  std::vector<std::string> full_targets;   // kNewRootMountpoint + op.target, one per op
  std::vector<std::string> tmpfs_options;  // "size=N,mode=M" per op ("" for non-tmpfs)
  std::vector<int> source_trees;    // detached trees by op (-1: none), see native/mount_trees.h
  std::vector<char> source_is_dir;  // mount point kind for each source tree
  std::string dev_null_path;        // the new root's /dev/null, for masking files
  const struct MountSyscalls* mount_syscalls = nullptr;  // null: the kernel's (unit tests: a fake)

  bool become_namespace_root = false;  // uid/gid 0 are mapped: do the setup as root inside
  bool can_setgroups = false;          // false for unprivileged callers (setgroups "deny")
  uint32_t uid = 1000, gid = 1000;     // the command's ids inside
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
  const std::vector<BpfInstruction>* seccomp = nullptr;

  // Persistent sandboxes: instead of a command, PID 1 execs the agent from this fd (opened on
  // the host, so the agent need not exist inside the root), keeping agent_keep_fd open for it.
  int agent_exec_fd = -1;
  int agent_keep_fd = -1;         // the listening socket, handed to the agent as fd 3
  std::vector<char*> agent_argv;  // null-terminated
  bool die_with_parent = true;    // false for persistent sandboxes, which outlive the CLI

  uint64_t rlimit_nofile = 1024;  // 0 = keep the inherited limit

  // fds inherited across clone.
  int sync_read = -1;     // the parent writes one byte once uid maps and cgroups are in place,
                          // then keeps the pipe open while it lives: a hang-up = it died
  int error_write = -1;   // ChildError records
  int status_write = -1;  // the sandbox init writes the command's wait status here
  int stdin_fd = -1;
  int stdout_write = -1;
  int stderr_write = -1;
  // A prepared exec init (proc/exec_go.h): once hardened it waits here for the request's cwd,
  // argv, envp, stdin and file-size limit, which are unset until then. -1: they are set already.
  int go_fd = -1;
  // The fallocate watch's channel (proc/fallocate_watch.h): the init sends the watch's listener
  // on it when it hardens, then closes it. -1: no watch.
  int watch_channel = -1;

  sigset_t spawn_saved_mask = {};  // the init's signal mask while it spawns the command
  sigset_t caught_signals = {};    // the init's handled signals: the command resets them
};

// The strings a plan's argv and envp point into. They must outlive the clone: the child's copy of
// the parent's memory has them at the same addresses.
struct CommandStrings {
  std::vector<std::string> argv;
  std::vector<std::string> env;
};
// Sets plan.argv and plan.envp, null-terminated, pointing into `strings`.
void PointAtCommand(CommandStrings& strings, ChildPlan& plan);

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
};
const char* ChildStepName(ChildStep step);

// What the init writes on status_write when the command ends. By then every other process of
// the command's tree is killed and reaped, so the report alone says the exec is over.
struct InitReport {
  int32_t command_status;  // raw wait status of the command
  int64_t cpu_us;          // user + system time of every process of the tree (RUSAGE_CHILDREN)
  int64_t max_rss_kb;      // the largest of them
};

struct ChildError {
  ChildStep step;
  int32_t err;       // errno
  char detail[240];  // e.g. the mount target; NUL-terminated
};

// In PID 1 of a fresh PID namespace (or, with plan.init_is_subreaper, in a subreaper): drops
// privileges, installs the seccomp filter, spawns the command (which inherits both) and stays as
// its init, reaping orphans and writing the command's wait status to plan.status_write. Never
// returns.
[[noreturn]] void ForkCommandAndBecomeInit(ChildPlan& plan);

// Child-side: RLIMIT_NOFILE (unless 0), RLIMIT_CORE 0 (a core dump would be written to
// /workspace, past the disk limit) and RLIMIT_FSIZE (unless 0). False with errno on failure.
bool ApplyRlimits(const ChildPlan& plan);

// Child-side: executes plan.mounts under kNewRootMountpoint. Returns false after reporting.
bool ExecuteMountPlan(ChildPlan& plan);
// Child-side: one error record, best effort.
void ReportChildError(const ChildPlan& plan, ChildStep step, int err, const char* detail);
// Child-side: with plan.die_with_parent, (re)arms SIGKILL on the parent's death and exits if the
// parent is already gone. Needed after every uid change: the kernel clears the parent-death
// signal whenever credentials change (prctl(2)).
void ArmParentDeathSignal(const ChildPlan& plan);
// Child-side: reports errno at `step` and exits 125.
[[noreturn]] void DieWithChildError(const ChildPlan& plan, ChildStep step, const char* detail);

}  // namespace agentbox
