#include "proc/workspace_pool.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "sys/btrfs.h"
#include "sys/file_util.h"
#include "sys/loop_device.h"
#include "sys/project_quota.h"
#include "sys/run_program.h"

namespace agentbox {
namespace {

constexpr long kXfsMagic = 0x58465342;  // "XFSB"
constexpr uint64_t kMinImageBytes = 1ull << 30;
constexpr uint64_t kBytesPerInode = 4096;
constexpr uint64_t kMinInodes = 1024;
constexpr PoolKind kKindsByPreference[] = {PoolKind::kBtrfs, PoolKind::kXfsProject,
                                           PoolKind::kExt4Project};

// Below this much free space on the host filesystem no pool is made (and the failure is not
// remembered: it passes when space is freed).
constexpr uint64_t kMinFreeForPool = 64ull << 20;

struct PoolPaths {
  std::string image, mount, lock, kind, unavailable;
  explicit PoolPaths(const std::string& dir)
      : image(dir + "/pool.img"),
        mount(dir + "/pool"),
        lock(dir + "/lock"),
        kind(dir + "/pool.kind"),
        unavailable(dir + "/pool.unavailable") {}
};

// Holds the pool's flock for as long as it lives.
class PoolLock {
 public:
  static StatusOr<PoolLock> Take(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!fd.valid()) return ErrnoStatus("open " + path);
    while (::flock(fd.get(), LOCK_EX) != 0) {
      if (errno != EINTR) return ErrnoStatus("lock " + path);
    }
    return PoolLock(std::move(fd));
  }

 private:
  explicit PoolLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;  // closing it releases the lock
};

bool KernelHas(const std::string& fstype) {
  auto text = ReadFile("/proc/filesystems");
  if (!text.ok()) return false;
  return text->find("\t" + fstype + "\n") != std::string::npos;
}

const char* FsType(PoolKind kind) {
  switch (kind) {
    case PoolKind::kBtrfs:
      return "btrfs";
    case PoolKind::kXfsProject:
      return "xfs";
    case PoolKind::kExt4Project:
      break;
  }
  return "ext4";
}

// A mounted filesystem of `kind` at mount (not the state dir's own filesystem under it).
bool MountedPool(const PoolPaths& paths, PoolKind* kind) {
  struct stat mount_st, parent_st;
  std::string parent = paths.mount.substr(0, paths.mount.rfind('/'));
  if (::stat(paths.mount.c_str(), &mount_st) != 0 || ::stat(parent.c_str(), &parent_st) != 0 ||
      mount_st.st_dev == parent_st.st_dev) {
    return false;
  }
  struct statfs fs;
  if (::statfs(paths.mount.c_str(), &fs) != 0) return false;
  const long type = static_cast<long>(fs.f_type);
  if (type == BTRFS_SUPER_MAGIC)
    *kind = PoolKind::kBtrfs;
  else if (type == kXfsMagic)
    *kind = PoolKind::kXfsProject;
  else if (type == EXT4_SUPER_MAGIC)
    *kind = PoolKind::kExt4Project;
  else
    return false;
  return true;
}

std::vector<std::string> MkfsCommand(PoolKind kind, const std::string& image) {
  switch (kind) {
    case PoolKind::kBtrfs:
      // Single metadata copy: the image lives on one host disk anyway, and every metadata
      // byte is charged to the workspaces' qgroups.
      return {FindHostProgram("mkfs.btrfs"), "-q", "-f", "-m", "single", "-d", "single", image};
    case PoolKind::kXfsProject:
      return {FindHostProgram("mkfs.xfs"), "-q", "-f", image};
    case PoolKind::kExt4Project:
      break;
  }
  // Inode tables are left for the kernel to treat as unused rather than zeroed: zeroing them
  // (ext4lazyinit) would fill the sparse image with gigabytes of zeros.
  return {FindHostProgram("mkfs.ext4"),
          "-q",
          "-F",
          "-m",
          "0",
          "-O",
          "project,quota",
          "-E",
          "lazy_itable_init=1,lazy_journal_init=1",
          image};
}

const char* MountOptions(PoolKind kind) {
  switch (kind) {
    case PoolKind::kBtrfs:
      return "";
    case PoolKind::kXfsProject:
      return "prjquota";
    case PoolKind::kExt4Project:
      break;
  }
  return "prjquota,noinit_itable";
}

const char* PackageOf(PoolKind kind) {
  switch (kind) {
    case PoolKind::kBtrfs:
      return "btrfs-progs";
    case PoolKind::kXfsProject:
      return "xfsprogs";
    case PoolKind::kExt4Project:
      break;
  }
  return "e2fsprogs";
}

Status MountImage(const PoolPaths& paths, PoolKind kind) {
  AB_ASSIGN_OR_RETURN(LoopDevice loop, AttachLoopDevice(paths.image));
  AB_RETURN_IF_ERROR(MakeDir(paths.mount, 0700));
  if (::mount(loop.path.c_str(), paths.mount.c_str(), FsType(kind),
              MS_NOSUID | MS_NODEV | MS_NOATIME, MountOptions(kind)) != 0) {
    return ErrnoStatus(std::string("mount the ") + FsType(kind) + " workspace pool " + paths.image);
  }
  // From here the mount holds the loop device (LO_FLAGS_AUTOCLEAR): `loop.fd` may close.
  UniqueFd root(::open(paths.mount.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  Status st = root.valid() ? OkStatus() : ErrnoStatus("open " + paths.mount);
  if (st.ok() && kind == PoolKind::kBtrfs) st = EnableBtrfsQuota(root.get());
  if (st.ok() && kind != PoolKind::kBtrfs && !ProjectQuotasEnforced(root.get())) {
    st = Unavailable(std::string(FsType(kind)) + " mounted without enforced project quotas");
  }
  if (!st.ok()) {
    root.reset();
    ::umount2(paths.mount.c_str(), 0);
  }
  return st;
}

// Makes a new pool of `kind`: a sparse image as big as the host filesystem holding it (so the
// pool's own free space never says less than the host has), formatted and mounted.
Status MakePool(const std::string& storage_dir, const PoolPaths& paths, PoolKind kind) {
  if (!KernelHas(FsType(kind)))
    return Unavailable("the kernel has no " + std::string(FsType(kind)));
  std::vector<std::string> mkfs = MkfsCommand(kind, paths.image);
  if (mkfs[0].empty()) {
    return Unavailable(std::string("no mkfs.") + FsType(kind) + " (apt-get install " +
                       PackageOf(kind) + ")");
  }
  struct statfs host;
  if (::statfs(storage_dir.c_str(), &host) != 0) return ErrnoStatus("statfs " + storage_dir);
  const uint64_t size = std::max<uint64_t>(kMinImageBytes, host.f_blocks * host.f_frsize);
  {
    AB_ASSIGN_OR_RETURN(UniqueFd image, OpenFile(paths.image, O_WRONLY | O_CREAT | O_TRUNC, 0600));
    if (::ftruncate(image.get(), static_cast<off_t>(size)) != 0) {
      return ErrnoStatus("size " + paths.image);
    }
  }
  Status st = RunHostProgram(mkfs);
  if (st.ok()) st = MountImage(paths, kind);
  if (st.ok()) st = WriteFile(paths.kind, FsType(kind), 0600);
  if (!st.ok()) ::unlink(paths.image.c_str());
  return st;
}

StatusOr<PoolKind> KindOnRecord(const PoolPaths& paths) {
  AB_ASSIGN_OR_RETURN(std::string text, ReadFile(paths.kind));
  for (PoolKind kind : kKindsByPreference) {
    if (text == FsType(kind)) return kind;
  }
  return Internal("unknown workspace pool kind \"" + text + "\" in " + paths.kind);
}

// What decides whether a pool can be made here: the kernel and which mkfs programs exist. A
// failure to make one is remembered with it, so a host that cannot have a pool does not pay
// three failed mkfs and mounts for every sandbox; it is tried again when this changes.
std::string HostFingerprint() {
  struct utsname u;
  std::string print = ::uname(&u) == 0 ? std::string(u.release) + " " + u.version : "";
  for (PoolKind k : kKindsByPreference) {
    print += std::string(" ") + FsType(k) + (KernelHas(FsType(k)) ? "+" : "-") +
             (MkfsCommand(k, "")[0].empty() ? "-" : "+");
  }
  return print;
}

// Mounts the pool, making it when there is none; `make` false: only an existing image.
StatusOr<PoolKind> MountOrMake(const std::string& storage_dir, const PoolPaths& paths, bool make) {
  PoolKind kind;
  if (MountedPool(paths, &kind)) return kind;
  if (PathExists(paths.image)) {  // made before, unmounted since (a reboot)
    AB_ASSIGN_OR_RETURN(kind, KindOnRecord(paths));
    AB_RETURN_IF_ERROR(MountImage(paths, kind));
    return kind;
  }
  if (!make) return NotFound("no workspace pool in " + storage_dir);
  if (::geteuid() != 0) return Unavailable("making a workspace pool needs root");
  struct statfs host;
  if (::statfs(storage_dir.c_str(), &host) == 0 &&
      static_cast<uint64_t>(host.f_bavail) * host.f_frsize < kMinFreeForPool) {
    return Unavailable("no room for a workspace pool: the filesystem holding " + storage_dir +
                       " has less than 64 MiB free");
  }
  const std::string fingerprint = HostFingerprint();
  if (auto known = ReadFile(paths.unavailable); known.ok()) {
    size_t nl = known->find('\n');
    if (nl != std::string::npos && known->substr(0, nl) == fingerprint) {
      return Unavailable(known->substr(nl + 1));
    }
  }
  std::string why;
  for (PoolKind k : kKindsByPreference) {
    Status st = MakePool(storage_dir, paths, k);
    if (st.ok()) {
      ::unlink(paths.unavailable.c_str());
      return k;
    }
    why += std::string(why.empty() ? "" : "; ") + FsType(k) + ": " + st.message();
  }
  why = "no filesystem with quotas for agentbox's workspaces (" + why + ")";
  (void)WriteFile(paths.unavailable, fingerprint + "\n" + why, 0600);
  return Unavailable(why);
}

}  // namespace

const char* PoolKindName(PoolKind kind) { return FsType(kind); }

std::string WorkspacePool::Describe(const std::string& storage_dir, bool* ok) {
  PoolPaths paths(storage_dir);
  PoolKind kind;
  *ok = true;
  if (MountedPool(paths, &kind)) {
    return std::string(FsType(kind)) + " workspace pool at " + paths.mount +
           (kind == PoolKind::kBtrfs ? " (a subvolume with a qgroup limit per workspace)"
                                     : " (a directory with a project quota per workspace)");
  }
  if (auto known = ReadFile(paths.unavailable); known.ok()) {
    size_t nl = known->find('\n');
    if (nl != std::string::npos && known->substr(0, nl) == HostFingerprint()) {
      *ok = false;
      return known->substr(nl + 1) + "; after fixing it, `agentbox gc` makes agentbox try again";
    }
  }
  std::string missing;
  if (::geteuid() != 0) missing = "root (to make and mount it)";
  if (::access("/dev/loop-control", R_OK | W_OK) != 0) {
    missing += std::string(missing.empty() ? "" : ", ") + "loop devices (/dev/loop-control)";
  }
  if (!KernelHas("btrfs"))
    missing += std::string(missing.empty() ? "" : ", ") + "btrfs in the kernel";
  if (MkfsCommand(PoolKind::kBtrfs, "")[0].empty()) {
    missing +=
        std::string(missing.empty() ? "" : ", ") + "mkfs.btrfs (apt-get install btrfs-progs)";
  }
  if (missing.empty()) {
    return "a btrfs workspace pool is made at " + paths.mount +
           " on first use (a subvolume with a qgroup limit per workspace)";
  }
  *ok = false;
  return "no btrfs workspace pool: missing " + missing +
         " (xfs or ext4 with project quotas are tried at first use); without a pool the disk "
         "limit of a workspace agentbox makes is not enforced";
}

uint64_t InodeCeiling(uint64_t limit_bytes) {
  if (limit_bytes == kNoDiskLimit) return 0;
  return std::max(kMinInodes, limit_bytes / kBytesPerInode);
}

StatusOr<WorkspacePool> WorkspacePool::Open(const std::string& storage_dir, bool make) {
  PoolPaths paths(storage_dir);
  if (!make && !PathExists(paths.image)) return NotFound("no workspace pool in " + storage_dir);
  AB_RETURN_IF_ERROR(MakeDirs(storage_dir, 0700).WithContext("workspace pool"));
  AB_ASSIGN_OR_RETURN(PoolLock lock, PoolLock::Take(paths.lock));
  AB_ASSIGN_OR_RETURN(PoolKind kind, MountOrMake(storage_dir, paths, make));
  UniqueFd root(::open(paths.mount.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return ErrnoStatus("open " + paths.mount);
  return WorkspacePool(paths.mount, kind, std::move(root));
}

std::vector<std::string> WorkspacePool::Sweep(const std::string& storage_dir,
                                              const std::function<bool(const std::string&)>& keep) {
  std::vector<std::string> removed;
  PoolPaths paths(storage_dir);
  ::unlink(paths.unavailable.c_str());  // a host fixed since (btrfs-progs installed) tries again
  if (!PathExists(paths.image)) return removed;
  auto lock = PoolLock::Take(paths.lock);
  if (!lock.ok()) return removed;
  auto kind = MountOrMake(storage_dir, paths, /*make=*/false);
  if (!kind.ok()) return removed;
  {
    UniqueFd root(::open(paths.mount.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!root.valid()) return removed;
    WorkspacePool pool(paths.mount, *kind, std::move(root));
    std::vector<uint64_t> live;
    for (const std::string& name : pool.VolumeNames()) {
      if (!keep(name)) {
        if (pool.DestroyVolume(name).ok())
          removed.push_back("workspace " + paths.mount + "/" + name);
        continue;
      }
      UniqueFd fd(::openat(pool.root_fd_.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      auto id = fd.valid() && *kind == PoolKind::kBtrfs ? BtrfsSubvolumeId(fd.get())
                                                        : StatusOr<uint64_t>(NotFound(""));
      if (id.ok()) live.push_back(*id);
    }
    if (*kind == PoolKind::kBtrfs) {
      int n = RemoveStaleBtrfsQgroups(pool.root_fd_.get(), live);
      if (n > 0) removed.push_back(std::to_string(n) + " stale qgroup(s) of the workspace pool");
    }
    if (!pool.VolumeNames().empty()) return removed;
  }
  // Empty: unmount (the loop device goes with it) and delete the image. A pool some process
  // still has open stays (EBUSY), for a later gc.
  if (::umount2(paths.mount.c_str(), 0) == 0) {
    ::unlink(paths.image.c_str());
    ::unlink(paths.kind.c_str());
    ::rmdir(paths.mount.c_str());
    removed.push_back("workspace pool " + paths.image);
  }
  return removed;
}

}  // namespace agentbox
