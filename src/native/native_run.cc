// RunNative: one command in a fresh native sandbox. Reads as its steps; each lives elsewhere.
#include "native/native_run.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>

#include "egress/proxy_process.h"
#include "image/sandbox_image.h"
#include "native/host_root.h"
#include "native/image_root.h"
#include "native/launch.h"
#include "native/run_name.h"
#include "policy/sandbox_env.h"
#include "proc/cgroup.h"
#include "proc/disk_quota.h"
#include "proc/outcome.h"
#include "proc/supervisor.h"
#include "proc/workspace.h"
#include "proc/workspace_manifest.h"
#include "proto/policy_walls.h"

namespace agentbox {
namespace {

static_assert(sizeof(BpfInstruction) == sizeof(struct sock_filter));

using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// `run` with allow_hosts: a proxy of its own, reached through a listener on the sandbox's
// loopback that exists before the command does. The proxy ends when this process hangs up.
class RunEgress {
 public:
  Status Start(const SandboxSpec& spec, LaunchRequest& request) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
      return ErrnoStatus("socketpair for the egress proxy");
    }
    UniqueFd ours(pair[0]), theirs(pair[1]);
    AB_ASSIGN_OR_RETURN(proxy_pid_, egress::StartEgressProxy(spec, theirs.get(), false, -1, ""));
    control_ = std::move(ours);
    request.extra_env = EgressProxyEnvironment(egress::kRunProxyPort);
    request.before_release = [this](pid_t child) { return OpenListener(child); };
    return OkStatus();
  }

  NetworkReport Finish() {
    NetworkReport report = channel_ ? channel_->Finish() : NetworkReport{true, {}, 0};
    Stop();
    return report;
  }

  ~RunEgress() { Stop(); }

  // Its report is in (or never will be): it ends on the hang-up, or now (our child, so its pid
  // is still ours until we reap it).
  void Stop() {
    control_.reset();
    channel_.reset();
    if (proxy_pid_ > 0) {
      ::kill(proxy_pid_, SIGKILL);
      ::waitpid(proxy_pid_, nullptr, 0);
      proxy_pid_ = -1;
    }
  }

 private:
  Status OpenListener(pid_t child) {
    const std::string ns = "/proc/" + std::to_string(child) + "/ns/net";
    UniqueFd netns(::open(ns.c_str(), O_RDONLY | O_CLOEXEC));
    if (!netns.valid()) return ErrnoStatus("open the sandbox's network namespace");
    AB_ASSIGN_OR_RETURN(UniqueFd listener,
                        egress::ListenInNamespace(netns.get(), egress::kRunProxyPort));
    AB_ASSIGN_OR_RETURN(auto channel,
                        egress::ExecChannel::Open(std::move(control_), std::move(listener)));
    channel_ = std::move(channel);
    return OkStatus();
  }

  pid_t proxy_pid_ = -1;
  UniqueFd control_;
  std::optional<egress::ExecChannel> channel_;
};

}  // namespace

ExecResult RunNative(const SandboxSpec& requested, const std::vector<std::string>& argv,
                     OutputCapture& output, const std::string& state_root) {
  auto start = Clock::now();
  ::signal(SIGPIPE, SIG_IGN);
  auto root = DescribeRoot(requested, state_root);
  if (!root.ok()) return ErrorResult(root.status());
  MountPlan mounts = BuildMountPlan(*root);
  // An image's root, locked against `image rm` until the run is over; its Env and WorkingDir.
  SandboxSpec spec = requested;
  std::optional<ImageRoot> image;
  if (root->image_root) {
    auto prepared = PrepareImageRoot(state_root, spec.image);
    if (!prepared.ok()) return ErrorResult(prepared.status());
    image = std::move(*prepared);
    image::ApplyImageConfig(image->record.config, &spec);
  }

  auto host = DetectCgroupHost();
  if (!host.ok()) return ErrorResult(host.status());
  const std::string name = NewRunName();
  auto cgroup = CreateCgroup(*host, name);
  if (!cgroup.ok()) return ErrorResult(cgroup.status());
  if (Status st = (*cgroup)->ApplyLimits(spec.limits); !st.ok()) {
    (void)(*cgroup)->Remove();
    return ErrorResult(st);
  }

  auto ws = PrepareWorkspace(WorkspaceRequestFor(spec, state_root, name));
  if (!ws.ok()) {
    (void)(*cgroup)->Remove();
    return ErrorResult(ws.status());
  }

  // The workspace as it was, for the effect report's list of changes.
  auto manifest = TakeManifest(ws->host_path);
  LaunchRequest request{spec, argv, mounts, *ws, **cgroup};
  request.watch_fallocate = ws->quota.enforced() && ws->quota.limited();
  if (image) request.image_root_fd = image->overlay.get();
  RunEgress egress;
  Status egress_started = spec.allow_hosts.empty() ? OkStatus() : egress.Start(spec, request);
  auto launched =
      egress_started.ok() ? LaunchSandbox(request) : StatusOr<LaunchedSandbox>(egress_started);
  ExecResult result;
  if (!launched.ok()) {
    result = ErrorResult(launched.status());
  } else {
    SupervisedSandbox& box = launched->box;
    SupervisionLimits limits;
    limits.deadline = start + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(spec.limits.timeout_seconds));
    limits.kill_all = [&] {
      KillSandboxInit(box.pidfd.get());
      (void)(*cgroup)->KillAll();
    };
    SupervisionOutcome outcome = Supervise(box, output, limits);
    auto stats = (*cgroup)->ReadStats();
    result = ResultOfSupervision(outcome, stats.ok() ? &*stats : nullptr, output);
    if (!spec.allow_hosts.empty()) result.network = egress.Finish();
    auto disk = ReadWorkspaceQuota(ws->host_path, ws->quota);
    if (disk.ok() && disk->at_limit) result.AddLimitHit(kLimitDisk);
  }
  (void)(*cgroup)->KillAll();
  if (launched.ok()) {
    result.effects.workspace = ChangesSince(manifest, ws->host_path);
    AddPolicyWalls(result, LimitValuesOf(spec.limits));
  }
  (void)(*cgroup)->Remove();
  ReleaseWorkspace(state_root, name, ws->host_path, ws->temporary, ws->quota);
  result.disk_limit = DiskLimitReportOf(ws->quota);
  result.stdout_data = output.kept(OutputStream::kStdout);
  result.stderr_data = output.kept(OutputStream::kStderr);
  result.duration_ms = MillisSince(start);
  return result;
}

}  // namespace agentbox
