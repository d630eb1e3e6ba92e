// Persistent native sandboxes: the same box as `run` (launch.cc), with the agent as PID 1.
#include "native/native_backend.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

#include "backend_common/sandbox_egress.h"
#include "backend_common/sandbox_resources.h"
#include "core/agent_binary.h"
#include "image/sandbox_image.h"
#include "native/host_root.h"
#include "native/image_root.h"
#include "native/launch.h"
#include "native/native_gc.h"
#include "proc/cgroup.h"
#include "proc/child_plan.h"
#include "proc/disk_quota.h"
#include "proc/outcome.h"
#include "proc/workspace.h"
#include "sys/file_util.h"
#include "sys/process_identity.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

constexpr int kAgentStartTimeoutMs = 10000;

StatusOr<UniqueFd> ListenOn(const std::string& path) {
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    return InvalidArgument("state directory path too long for a unix socket: " + path +
                           " (set AGENTBOX_STATE_DIR to a shorter path)");
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return ErrnoStatus("socket");
  ::unlink(path.c_str());
  if (::bind(fd.get(), reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::chmod(path.c_str(), 0600) != 0 || ::listen(fd.get(), 128) != 0) {
    return ErrnoStatus("listen on " + path);
  }
  return fd;
}

// Waits until the agent has been exec'd (EOF on the error pipe) or a setup step failed.
Status AwaitAgent(SupervisedSandbox& box) {
  struct pollfd pfd = {box.error_read.get(), POLLIN, 0};
  int n = ::poll(&pfd, 1, kAgentStartTimeoutMs);
  if (n <= 0) return Internal("the sandbox did not start its agent in time");
  ChildError record;
  ssize_t got = ::read(box.error_read.get(), &record, sizeof(record));
  if (got == 0) return OkStatus();
  if (got != sizeof(record)) return Internal("the sandbox's setup failed without a reason");
  record.detail[sizeof(record.detail) - 1] = '\0';
  return Unavailable("sandbox setup failed: " + DescribeChildError(record));
}

class NativeBackend : public Backend {
 public:
  explicit NativeBackend(std::string state_root) : state_root_(std::move(state_root)) {}

  Status Create(SandboxRecord& record) override {
    AB_ASSIGN_OR_RETURN(MountPlanInput root, DescribeRoot(record.spec, state_root_));
    MountPlan mounts = BuildMountPlan(root);
    // An image's root: locked until the record names it (then `image rm` sees it in use).
    std::optional<ImageRoot> image;
    if (root.image_root) {
      AB_ASSIGN_OR_RETURN(image, PrepareImageRoot(state_root_, record.spec.image));
      image::ApplyImageConfig(image->record.config, &record.spec);
      AB_RETURN_IF_ERROR(ApplyImageUser(*image, &record.spec));
      record.image_id = image->record.id;
      // Before the lock goes (when Create returns, before the record is saved): `image rm`
      // reads this too, so a sandbox still being made counts as a user of its image.
      AB_RETURN_IF_ERROR(WriteFile(record.state_dir + "/image", record.image_id, 0600));
    }
    AB_ASSIGN_OR_RETURN(CgroupHost host, Host());
    record.cgroup = "sb-" + record.id;
    AB_ASSIGN_OR_RETURN(auto cgroup, CreateCgroup(host, record.cgroup));
    AB_RETURN_IF_ERROR(cgroup->ApplyLimits(record.spec.limits));
    AB_ASSIGN_OR_RETURN(Workspace ws,
                        PrepareWorkspace(SandboxWorkspaceRequest(record, state_root_)));
    KeepWorkspace(ws, record);
    AB_ASSIGN_OR_RETURN(UniqueFd listen_fd, ListenOn(record.agent_socket));
    AB_ASSIGN_OR_RETURN(UniqueFd log_fd, OpenFile(record.state_dir + "/agent.log",
                                                  O_WRONLY | O_CREAT | O_APPEND, 0600));
    UniqueFd agent_fd(::open(AgentBinaryPath().c_str(), O_PATH | O_CLOEXEC));
    if (!agent_fd.valid()) return ErrnoStatus("the agent binary " + AgentBinaryPath());

    std::vector<std::string> no_argv;
    LaunchRequest request{record.spec, no_argv, mounts, ws, *cgroup};
    request.agent_fd = agent_fd.get();
    request.listen_fd = listen_fd.get();
    request.log_fd = log_fd.get();
    request.watch_fallocate = ws.quota.enforced() && ws.quota.limited();
    if (image) request.image_root_fd = image->overlay.get();
    AB_ASSIGN_OR_RETURN(LaunchedSandbox launched, LaunchSandbox(request));
    if (Status st = AwaitAgent(launched.box); !st.ok()) {
      KillSandboxInit(launched.box.pidfd.get());
      (void)cgroup->KillAll();
      return st;  // the cgroup object removes itself; the manager removes the state dir
    }
    record.init_pid = launched.init_pid;
    record.init_start_time = ProcessStartTime(launched.init_pid);
    if (!record.spec.allow_hosts.empty()) {
      if (Status st = StartSandboxEgress(record); !st.ok()) {
        KillSandboxInit(launched.box.pidfd.get());
        (void)cgroup->KillAll();
        return st;
      }
    }
    record.cgroup_location = cgroup->Location();
    cgroup->Keep();
    return OkStatus();
  }

  StatusOr<std::unique_ptr<ExecEgress>> OpenExecEgress(const SandboxRecord& record) override {
    return OpenSandboxEgress(record);
  }

  bool IsAlive(const SandboxRecord& record) override {
    return ProcessRunning(record.init_pid, record.init_start_time);
  }

  Status Destroy(const SandboxRecord& record) override {
    StopSandboxEgress(record);
    Status st = DestroyBox(record);
    if (st.ok()) ReleaseSandboxWorkspace(record, state_root_);
    return st;
  }

  StatusOr<ResourceSnapshot> Snapshot(const SandboxRecord& record) override {
    auto cgroup = record.cgroup_location.empty() ? OpenCgroupByName(record.cgroup)
                                                 : OpenCgroupAt(record.cgroup_location);
    if (!cgroup.ok()) return cgroup.status();
    AB_ASSIGN_OR_RETURN(CgroupStats stats, (*cgroup)->ReadStats());
    ResourceSnapshot snapshot = ToResourceSnapshot(stats);
    AddWorkspaceUsage(record, snapshot);
    return snapshot;
  }

  std::vector<std::string> CollectGarbage(const std::vector<std::string>& live_ids) override {
    return CollectNativeGarbage(state_root_, live_ids);
  }

 private:
  // The processes and the cgroup.
  Status DestroyBox(const SandboxRecord& record) {
    if (IsAlive(record)) {
      UniqueFd pidfd(sys::PidfdOpen(record.init_pid));
      // Checked again through the pidfd: the pid cannot be reused while we hold it.
      if (pidfd.valid() && IsAlive(record)) {
        sys::PidfdSendSignal(pidfd.get(), SIGKILL);
        struct pollfd pfd = {pidfd.get(), POLLIN, 0};
        ::poll(&pfd, 1, 5000);
      }
    }
    auto host = Host();
    if (!host.ok() || record.cgroup.empty()) return host.status();
    auto cgroup = OpenCgroup(*host, record.cgroup);
    if (!cgroup.ok() && cgroup.status().code() == StatusCode::kNotFound) {
      // Gone, or partly removed by an rm that was killed midway (v1): take what is left.
      return RemoveCgroupRemains(*host, record.cgroup);
    }
    if (!cgroup.ok()) return cgroup.status();
    AB_RETURN_IF_ERROR((*cgroup)->KillAll());
    return (*cgroup)->Remove();
  }

  StatusOr<std::unique_ptr<Cgroup>> OpenCgroupByName(const std::string& name) {
    AB_ASSIGN_OR_RETURN(CgroupHost host, Host());
    return OpenCgroup(host, name);
  }

  // Detected once per process.
  StatusOr<CgroupHost> Host() {
    std::lock_guard<std::mutex> lock(host_mutex_);  // servers exec from many threads
    if (!host_) host_ = DetectCgroupHost();
    return *host_;
  }

  std::string state_root_;
  std::mutex host_mutex_;
  std::optional<StatusOr<CgroupHost>> host_;
};

}  // namespace

std::unique_ptr<Backend> MakeNativeBackend(const std::string& state_root) {
  return std::make_unique<NativeBackend>(state_root);
}

}  // namespace agentbox
