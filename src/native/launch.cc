#include "native/launch.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "native/mount_trees.h"
#include "policy/image_user.h"
#include "policy/sandbox_env.h"
#include "policy/seccomp_program.h"
#include "proc/child_order.h"
#include "proc/seccomp_listener.h"
#include "proc/time_namespace.h"
#include "proc/urandom_watch.h"
#include "proc/userns_hint.h"
#include "proto/agent_protocol.h"
#include "sys/file_util.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

// Every namespace of docs/contract.md §2 but cgroup, unshared by the child once in its cgroup.
constexpr uint64_t kNamespaceFlags =
    CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET;

std::string TmpfsOptions(const MountOp& op) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "size=%llu,mode=%o", static_cast<unsigned long long>(op.size),
                op.mode);
  return buf;
}

void FillPlan(const LaunchRequest& req, const MountTrees& trees, CommandStrings& storage,
              ChildPlan& plan) {
  BoxSetup& box = plan.box;
  box.mounts = &req.mounts;
  for (const MountOp& op : req.mounts.ops) {
    box.full_targets.push_back(std::string(kNewRootMountpoint) +
                               (op.target == "/" ? "" : op.target));
    box.tmpfs_options.push_back(op.kind == MountKind::kTmpfs ? TmpfsOptions(op) : "");
  }
  for (const UniqueFd& tree : trees.trees) box.source_trees.push_back(tree.get());
  box.source_is_dir = trees.is_dir;
  box.dev_null_path = std::string(kNewRootMountpoint) + "/dev/null";
  box.become_namespace_root = ::geteuid() == 0;
  if (req.spec.clock_start_seconds)
    box.timens_offsets = TimeOffsetsFor(*req.spec.clock_start_seconds);
  plan.can_setgroups = ::geteuid() == 0;

  CommandLaunch& command = plan.command;
  command.uid = req.spec.user.uid;
  command.gid = req.spec.user.gid;
  command.cwd = req.spec.cwd;
  storage.argv = req.argv;
  if (req.agent_fd >= 0) {
    storage.argv = {"agentbox-agent"};
    if (req.watch_fallocate) storage.argv.push_back(kAgentDiskWatchFlag);
    if (req.spec.random_seed) {
      storage.argv.push_back(kAgentRandomSeedFlag);
      storage.argv.push_back(std::to_string(*req.spec.random_seed));
    }
    if (req.spec.user != SandboxUser{}) {
      storage.argv.push_back(kAgentUserFlag);
      storage.argv.push_back(SandboxUserText(req.spec.user));
    }
    box.agent_exec_fd = req.agent_fd;
    box.agent_keep_fd = req.listen_fd;
    plan.die_with_parent = false;
  }
  std::vector<std::pair<std::string, std::string>> env = req.extra_env;
  env.insert(env.end(), req.spec.env.begin(), req.spec.env.end());
  storage.env = BuildSandboxEnvironment(env);
  PointAtCommand(storage, command);
  command.seccomp = &DefaultSeccompProgram();
  command.rlimit_nofile = req.spec.open_files;
}

Status WriteIdMap(pid_t pid, const char* file, const std::string& text) {
  std::string path = "/proc/" + std::to_string(pid) + "/" + file;
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid() ||
      ::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    return ErrnoStatus(std::string("write ") + file + " of the sandbox (user namespaces)")
        .WithContext("cannot map the sandbox's users");
  }
  return OkStatus();
}

// Inside: 0 (setup only, then dropped) and the sandbox user (the command: 1000, or an image's
// user), which is on the host the id 1000 always was. Neither is host uid 0.
Status WriteIdMaps(pid_t pid, const Workspace& ws, const SandboxUser& user) {
  const std::string uid = std::to_string(user.uid) + " ";
  const std::string gid = std::to_string(user.gid) + " ";
  if (::geteuid() != 0) {
    AB_RETURN_IF_ERROR(WriteIdMap(pid, "setgroups", "deny"));
    AB_RETURN_IF_ERROR(WriteIdMap(pid, "uid_map", uid + std::to_string(::geteuid()) + " 1\n"));
    return WriteIdMap(pid, "gid_map", gid + std::to_string(::getegid()) + " 1\n");
  }
  std::string root = "0 " + std::to_string(kSandboxHostRootId) + " 1\n";
  AB_RETURN_IF_ERROR(
      WriteIdMap(pid, "uid_map", root + uid + std::to_string(ws.sandbox_host_uid) + " 1\n"));
  return WriteIdMap(pid, "gid_map", root + gid + std::to_string(ws.sandbox_host_gid) + " 1\n");
}

StatusOr<UniqueFd> OpenStdin(bool pass_stdin) {
  UniqueFd fd(pass_stdin ? ::fcntl(0, F_DUPFD_CLOEXEC, 3)
                         : ::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus("open the command's stdin");
  return fd;
}

[[noreturn]] void StartChild(ChildPlan& plan) {
  UnblockSupervisorSignals();
  // A one-shot sandbox dies with agentbox, whatever kills agentbox.
  if (plan.die_with_parent) ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  RunSandboxChild(plan);
}

}  // namespace

void KillSandboxInit(int pidfd) {
  if (pidfd >= 0) sys::PidfdSendSignal(pidfd, SIGKILL);
}

StatusOr<LaunchedSandbox> LaunchSandbox(const LaunchRequest& req) {
  // Seeded: /dev/urandom too, or not at all (proc/urandom_watch.h).
  if (req.spec.random_seed) AB_RETURN_IF_ERROR(SeededUrandomSupported());
  AB_ASSIGN_OR_RETURN(MountTrees trees,
                      PrepareMountTrees(req.mounts, req.workspace, req.image_root_fd));
  CommandStrings storage;
  ChildPlan plan;
  FillPlan(req, trees, storage, plan);
  AB_ASSIGN_OR_RETURN(Pipe sync, MakePipe());
  AB_ASSIGN_OR_RETURN(Pipe error, MakePipe());
  AB_ASSIGN_OR_RETURN(Pipe status, MakePipe());
  AB_ASSIGN_OR_RETURN(Pipe out, MakePipe());
  AB_ASSIGN_OR_RETURN(Pipe err, MakePipe());
  // `run`'s command: its denials (and, with a held disk limit, its fallocate calls) come to
  // this process. A persistent sandbox's agent makes one per exec.
  ListenerChannel listener;
  if (req.agent_fd < 0) {
    AB_ASSIGN_OR_RETURN(listener, MakeListenerChannel(req.workspace.host_path, req.watch_fallocate,
                                                      req.spec.random_seed));
    plan.command.listener_channel = listener.child.get();
    UseListenedFilter(plan.command, req.watch_fallocate, req.spec.random_seed.has_value());
  }
  // The agent never gets the creator's stdin: each exec passes its own.
  AB_ASSIGN_OR_RETURN(UniqueFd stdin_fd, OpenStdin(req.spec.pass_stdin && req.agent_fd < 0));
  plan.sync_read = sync.read.get();
  plan.error_write = error.write.get();
  plan.command.status_write = status.write.get();
  plan.command.stdin_fd = stdin_fd.get();
  plan.command.stdout_write = req.log_fd >= 0 ? req.log_fd : out.write.get();
  plan.command.stderr_write = req.log_fd >= 0 ? req.log_fd : err.write.get();

  BlockSupervisorSignals();
  int pidfd = -1;
  struct clone_args args = {};
  args.flags = kNamespaceFlags | CLONE_PIDFD;
  args.pidfd = reinterpret_cast<uint64_t>(&pidfd);
  args.exit_signal = SIGCHLD;
  long pid = sys::Clone3(&args);
  if (pid < 0) {
    // ENOMEM or EAGAIN is the host's load; anything else is a switch that forbids the user
    // namespace (ENOSPC at max_user_namespaces=0, EPERM under an LSM), which the error names.
    const char* what = "clone the sandbox (user, mount, pid, ipc, uts and net namespaces)";
    Status failed =
        errno == ENOMEM || errno == EAGAIN ? ErrnoStatus(what) : UserNamespaceError(what, errno);
    return failed.WithContext("the host cannot create the sandbox; see `agentbox doctor`");
  }
  if (pid == 0) StartChild(plan);

  LaunchedSandbox launched;
  launched.init_pid = static_cast<pid_t>(pid);
  launched.box.pid = launched.init_pid;
  launched.box.pidfd.reset(pidfd);
  Status st = WriteIdMaps(launched.init_pid, req.workspace, req.spec.user);
  if (st.ok()) st = req.cgroup.AddProcess(launched.init_pid);
  if (st.ok() && req.before_release) st = req.before_release(launched.init_pid);
  if (!st.ok()) {
    KillSandboxInit(pidfd);
    ::waitpid(launched.init_pid, nullptr, 0);
    return st;
  }
  if (::write(sync.write.get(), "x", 1) != 1) return ErrnoStatus("release the sandbox");
  launched.box.stdout_read = std::move(out.read);
  launched.box.stderr_read = std::move(err.read);
  launched.box.status_read = std::move(status.read);
  launched.box.error_read = std::move(error.read);
  launched.box.parent_alive = std::move(sync.write);
  launched.box.listener_read = std::move(listener.supervisor);
  launched.box.watch_fallocate = listener.watch_fallocate;
  launched.box.random_seed = listener.random_seed;
  launched.box.workspace_dev = listener.workspace_dev;
  return launched;
}

}  // namespace agentbox
