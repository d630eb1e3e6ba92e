#include "policy/mount_plan.h"

#include <algorithm>

namespace agentbox {
namespace {

// Top-level names the sandbox always provides itself, whatever the rootfs holds.
bool IsReservedRootName(const std::string& name, bool custom_rootfs) {
  static const std::vector<std::string> kReserved = {"proc", "dev", "sys", "tmp", "workspace"};
  if (std::find(kReserved.begin(), kReserved.end(), name) != kReserved.end()) return true;
  return !custom_rootfs && name == "etc";  // the default root gets a generated minimal /etc
}

bool InAllowlist(const std::string& name) {
  const auto& allow = DefaultRootAllowlist();
  return std::find(allow.begin(), allow.end(), name) != allow.end();
}

MountOp Op(MountKind kind, std::string target) {
  return MountOp{kind, "", std::move(target), "", 0, 0};
}

MountOp SourcedOp(MountKind kind, std::string source, std::string target) {
  MountOp op = Op(kind, std::move(target));
  op.source = std::move(source);
  return op;
}

MountOp Tmpfs(std::string target, uint64_t size, uint32_t mode) {
  MountOp op = Op(MountKind::kTmpfs, std::move(target));
  op.size = size;
  op.mode = mode;
  return op;
}

std::string JoinHost(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

void AddRootEntries(const MountPlanInput& in, std::vector<MountOp>& ops) {
  for (const RootEntry& e : in.root_entries) {
    if (IsReservedRootName(e.name, in.custom_rootfs)) continue;
    if (!in.custom_rootfs && !InAllowlist(e.name)) continue;
    if (e.type == RootEntry::Type::kSymlink) {
      ops.push_back(SourcedOp(MountKind::kSymlink, e.link_text, "/" + e.name));
    } else {
      ops.push_back(
          SourcedOp(MountKind::kBindReadOnly, JoinHost(in.root_source, e.name), "/" + e.name));
    }
  }
}

void AddMinimalEtc(const MountPlanInput& in, std::vector<MountOp>& ops) {
  ops.push_back(Tmpfs("/etc", 1 * kMiB, 0755));
  auto file = [&](const char* name, std::string data) {
    MountOp op = Op(MountKind::kFile, std::string("/etc/") + name);
    op.data = std::move(data);
    ops.push_back(std::move(op));
  };
  file("passwd", GeneratedPasswd());
  file("group", GeneratedGroup());
  file("hosts", GeneratedHosts());
  file("hostname", std::string(kSandboxHostname) + "\n");
  file("resolv.conf", kSandboxResolvConf);
  for (const std::string& name : DefaultEtcAllowlist()) {
    if (std::find(in.host_etc_entries.begin(), in.host_etc_entries.end(), name) ==
        in.host_etc_entries.end()) {
      continue;
    }
    ops.push_back(SourcedOp(MountKind::kBindReadOnly, "/etc/" + name, "/etc/" + name));
  }
  ops.push_back(Op(MountKind::kReadOnly, "/etc"));
}

void AddDev(const MountPlanInput& in, std::vector<MountOp>& ops) {
  ops.push_back(Tmpfs("/dev", 64 * kKiB, 0755));
  // docs/contract.md §2: null, zero, full, random, urandom, tty, pts; nothing reaching hardware.
  for (const char* dev : {"null", "zero", "full", "random", "urandom", "tty"}) {
    ops.push_back(
        SourcedOp(MountKind::kDevice, std::string("/dev/") + dev, std::string("/dev/") + dev));
  }
  ops.push_back(SourcedOp(MountKind::kSymlink, "pts/ptmx", "/dev/ptmx"));
  ops.push_back(SourcedOp(MountKind::kSymlink, "/proc/self/fd", "/dev/fd"));
  ops.push_back(SourcedOp(MountKind::kSymlink, "/proc/self/fd/0", "/dev/stdin"));
  ops.push_back(SourcedOp(MountKind::kSymlink, "/proc/self/fd/1", "/dev/stdout"));
  ops.push_back(SourcedOp(MountKind::kSymlink, "/proc/self/fd/2", "/dev/stderr"));
  MountOp pts = Op(MountKind::kDir, "/dev/pts");
  pts.mode = 0755;
  ops.push_back(pts);
  MountOp shm = Op(MountKind::kDir, "/dev/shm");
  shm.mode = 0755;
  ops.push_back(shm);
  // Read-only before the two writable mounts go on top: nobody can add nodes to /dev.
  ops.push_back(Op(MountKind::kReadOnly, "/dev"));
  ops.push_back(Op(MountKind::kDevpts, "/dev/pts"));
  ops.push_back(Tmpfs("/dev/shm", in.shm_bytes, 01777));
}

void AddProc(std::vector<MountOp>& ops) {
  for (MountOp& op : ProcMounts()) ops.push_back(std::move(op));
}

}  // namespace

std::vector<MountOp> ProcMounts() {
  std::vector<MountOp> ops;
  ops.push_back(Op(MountKind::kProc, "/proc"));
  // runc's and Docker's default masks and read-only paths, at least (sysrq-trigger, read-only
  // there, is masked here), each absent one skipped. Defence in depth: uid 1000 without
  // capabilities cannot write these anyway, but several leak host state to anyone who reads
  // them: kernel memory (kcore), other tenants' keys (keys), timers and scheduler state of
  // every host process (timer_list, sched_debug: addresses, pids, command names).
  for (const char* dir : {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys"}) {
    ops.push_back(Op(MountKind::kBindSelfReadOnly, dir));
  }
  for (const char* file :
       {"/proc/sysrq-trigger", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
        "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug"}) {
    ops.push_back(Op(MountKind::kMaskFile, file));
  }
  for (const char* dir : {"/proc/acpi", "/proc/asound", "/proc/scsi"}) {
    ops.push_back(Op(MountKind::kMaskDir, dir));
  }
  return ops;
}

const std::vector<std::string>& DefaultRootAllowlist() {
  static const std::vector<std::string> kAllow = {"usr",   "bin",   "sbin",  "lib",
                                                  "lib32", "lib64", "libx32"};
  return kAllow;
}

const std::vector<std::string>& DefaultEtcAllowlist() {
  // What common tools read at start-up; each entry is one mount, so the list stays short.
  static const std::vector<std::string> kAllow = {
      "alternatives",  "ld.so.cache", "ssl",      "ca-certificates", "localtime",
      "nsswitch.conf", "protocols",   "services", "python3",         "python3.11"};
  return kAllow;
}

std::string GeneratedPasswd() {
  return "root:x:0:0:root:/root:/bin/sh\n"
         "sandbox:x:1000:1000:sandbox:/workspace:/bin/sh\n"
         "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
}

std::string GeneratedGroup() { return "root:x:0:\nsandbox:x:1000:\nnogroup:x:65534:\n"; }

std::string GeneratedHosts() {
  return "127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n";
}

MountPlan BuildMountPlan(const MountPlanInput& in) {
  MountPlan plan;
  auto& ops = plan.ops;
  if (in.image_root) {
    ops.push_back(Op(MountKind::kRootTree, "/"));
  } else {
    AddRootEntries(in, ops);
    if (!in.custom_rootfs) AddMinimalEtc(in, ops);
  }
  ops.push_back(Tmpfs("/tmp", in.tmp_bytes, 01777));
  AddDev(in, ops);
  AddProc(ops);
  ops.push_back(Op(MountKind::kWorkspace, kWorkspaceDir));
  ops.push_back(Op(MountKind::kReadOnly, "/"));
  return plan;
}

}  // namespace agentbox
