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

#include "image/sandbox_image.h"
#include "native/host_root.h"
#include "native/image_root.h"
#include "native/launch.h"
#include "native/run_name.h"
#include "native/run_network.h"
#include "proc/cgroup.h"
#include "proc/disk_quota.h"
#include "proc/outcome.h"
#include "proc/supervisor.h"
#include "proc/workspace.h"

namespace agentbox {
namespace {

static_assert(sizeof(BpfInstruction) == sizeof(struct sock_filter));

using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

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

  LaunchRequest request{spec, argv, mounts, *ws, **cgroup};
  request.watch_fallocate = ws->quota.enforced() && ws->quota.limited();
  if (image) request.image_root_fd = image->overlay.get();
  RunNetwork network;
  Status network_started = network.Start(spec, request);
  auto launched =
      network_started.ok() ? LaunchSandbox(request) : StatusOr<LaunchedSandbox>(network_started);
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
    result.network = network.Finish();
    auto disk = ReadWorkspaceQuota(ws->host_path, ws->quota);
    if (disk.ok() && disk->at_limit) result.AddLimitHit(kLimitDisk);
  }
  (void)(*cgroup)->KillAll();
  (void)(*cgroup)->Remove();
  ReleaseWorkspace(state_root, name, ws->host_path, ws->temporary, ws->quota);
  result.disk_limit = DiskLimitReportOf(ws->quota);
  result.stdout_data = output.kept(OutputStream::kStdout);
  result.stderr_data = output.kept(OutputStream::kStderr);
  result.duration_ms = MillisSince(start);
  return result;
}

}  // namespace agentbox
