#include "proc/workspace.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string>

#include "policy/host_paths.h"
#include "proc/disk_quota.h"
#include "proc/userns_hint.h"
#include "proc/workspace_pool.h"
#include "proc/workspace_scan.h"
#include "spec/units.h"
#include "sys/file_util.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

Status WriteProcFile(pid_t pid, const char* name, const std::string& text) {
  std::string path = "/proc/" + std::to_string(pid) + "/" + name;
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus("open " + path);
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    return ErrnoStatus("write " + path);
  }
  return OkStatus();
}

// A user namespace whose only mapping is host `from` -> host `to`, as an fd. Used as the idmap
// of the workspace mount: a file owned by `from` on disk appears owned by `to`, and files `to`
// creates are stored as `from`.
StatusOr<UniqueFd> MakeIdmapUserns(uid_t from_uid, gid_t from_gid, uid_t to_uid, gid_t to_gid) {
  int hold[2];
  if (::pipe2(hold, O_CLOEXEC) != 0) return ErrnoStatus("pipe");
  UniqueFd hold_read(hold[0]), hold_write(hold[1]);
  struct clone_args args = {};
  args.flags = CLONE_NEWUSER;
  args.exit_signal = SIGCHLD;
  long pid = sys::Clone3(&args);
  if (pid < 0) return UserNamespaceError("clone(CLONE_NEWUSER) for the workspace idmap", errno);
  if (pid == 0) {  // holds the namespace alive until the parent has opened it
    char byte;
    hold_write.reset();
    ssize_t ignored = ::read(hold_read.get(), &byte, 1);
    (void)ignored;
    ::_exit(0);
  }
  auto p = static_cast<pid_t>(pid);
  Status st =
      WriteProcFile(p, "uid_map", std::to_string(from_uid) + " " + std::to_string(to_uid) + " 1\n");
  if (st.ok()) {
    st = WriteProcFile(p, "gid_map",
                       std::to_string(from_gid) + " " + std::to_string(to_gid) + " 1\n");
  }
  UniqueFd ns(::open(("/proc/" + std::to_string(p) + "/ns/user").c_str(), O_RDONLY | O_CLOEXEC));
  if (st.ok() && !ns.valid()) st = ErrnoStatus("open the idmap user namespace");
  hold_write.reset();
  ::waitpid(p, nullptr, 0);
  if (!st.ok()) return st;
  return ns;
}

StatusOr<UniqueFd> MakeIdmappedTree(const Workspace& ws) {
  AB_ASSIGN_OR_RETURN(UniqueFd userns, MakeIdmapUserns(ws.owner_uid, ws.owner_gid,
                                                       ws.sandbox_host_uid, ws.sandbox_host_gid));
  UniqueFd tree(sys::OpenTree(AT_FDCWD, ws.host_path.c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
  if (!tree.valid()) return ErrnoStatus("open_tree " + ws.host_path);
  struct mount_attr attr = {};
  attr.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
  attr.userns_fd = static_cast<uint64_t>(userns.get());
  if (sys::MountSetattr(tree.get(), "", AT_EMPTY_PATH, &attr) != 0) {
    return ErrnoStatus("idmapped mount of the workspace " + ws.host_path +
                       " (its filesystem must support idmapped mounts, or give a workspace "
                       "owned by a non-root user)");
  }
  return tree;
}

// The absolute path `path` stands for, symlinks resolved as far as it exists: what the checks
// look at before anything is created.
std::string ResolveForCheck(const std::string& path) {
  std::string abs = path;
  if (abs.empty() || abs[0] != '/') {
    char cwd[PATH_MAX];
    abs = std::string(::getcwd(cwd, sizeof(cwd)) ? cwd : "/") + "/" + path;
  }
  abs = NormalizeAbsolutePath(abs);
  std::string rest;
  for (std::string head = abs;;) {
    char resolved[PATH_MAX];
    if (::realpath(head.c_str(), resolved) != nullptr) {
      return NormalizeAbsolutePath(std::string(resolved) + rest);
    }
    size_t slash = head.rfind('/');
    if (slash == std::string::npos || head == "/") return abs;
    rest = head.substr(slash) + rest;
    head = slash == 0 ? "/" : head.substr(0, slash);
  }
}

bool IsEmptyDirectory(const std::string& path) {
  auto names = ListDir(path);
  return names.ok() && names->empty();
}

std::string LimitText(uint64_t bytes) { return FormatSize(bytes); }

// A limit someone asked for is a promise: refused when nothing can hold it. The built-in
// default is kept as a note (docs/architecture.md, "When the disk limit cannot be held").
Status RefuseUnheldExplicitLimit(const WorkspaceRequest& req, const WorkspaceQuota& quota) {
  if (!quota.limited() || quota.enforced() || !req.disk_limit_explicit) return OkStatus();
  return InvalidArgument("the disk limit " + LimitText(quota.limit_bytes) +
                         " cannot be enforced: " + quota.not_enforced +
                         (req.host_dir ? "; leave out the workspace directory (agentbox's own "
                                         "workspaces are held by a quota), put it on a "
                                         "filesystem with project quotas,"
                                       : ";") +
                         " or give --disk-limit none");
}

// Who uid 1000 inside is on the host, and the idmapped clone when the owner differs.
Status SetSandboxIds(const WorkspaceRequest& req, Workspace& ws) {
  ws.sandbox_host_uid = req.fixed_ids ? req.fixed_ids->uid : kSandboxHostUserId;
  ws.sandbox_host_gid = req.fixed_ids ? req.fixed_ids->gid : kSandboxHostUserId;
  if (ws.sandbox_host_uid == ws.owner_uid && ws.sandbox_host_gid == ws.owner_gid) {
    return OkStatus();
  }
  auto tree = MakeIdmappedTree(ws);
  if (tree.ok()) {
    ws.idmapped_tree = std::move(tree).value();
    return OkStatus();
  }
  // A filesystem without idmapped mounts: a directory of an unprivileged user can still be
  // used as that user (whose files the command may then change anyway); root never.
  if (req.fixed_ids || ws.owner_uid == 0) return tree.status();
  ws.sandbox_host_uid = ws.owner_uid;
  ws.sandbox_host_gid = ws.owner_gid;
  return OkStatus();
}

StatusOr<Workspace> PreparePrivate(const WorkspaceRequest& req) {
  Workspace ws;
  ws.temporary = true;
  // Owned by the sandbox user itself: no idmap needed, and nothing in it is anyone else's.
  ws.owner_uid = req.fixed_ids ? req.fixed_ids->uid : kSandboxHostUserId;
  ws.owner_gid = req.fixed_ids ? req.fixed_ids->gid : kSandboxHostUserId;
  auto pool = WorkspacePool::Open(WorkspaceStorageDir(req.state_root));
  if (!pool.ok() && !req.source_volume.empty()) return pool.status();
  if (pool.ok()) {
    AB_ASSIGN_OR_RETURN(PoolVolume vol, pool->CreateVolume(req.name, req.disk_limit, ws.owner_uid,
                                                           ws.owner_gid, req.source_volume));
    ws.host_path = vol.path;
    ws.quota = vol.quota;
  } else {
    std::string dir = req.fallback_dir;
    if (dir.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      // The pid in the name lets `agentbox gc` tell a crashed run's leftover from a live one.
      dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + kRunWorkspacePrefix +
            std::to_string(::getpid()) + "-XXXXXX";
      if (::mkdtemp(dir.data()) == nullptr) return ErrnoStatus("create a temporary workspace");
    } else if (::mkdir(dir.c_str(), 0700) != 0) {
      return ErrnoStatus("create " + dir);
    }
    ws.host_path = dir;
    ws.quota.limit_bytes = req.disk_limit;
    if (ws.quota.limited()) ws.quota.not_enforced = "no workspace pool: " + pool.status().message();
  }
  auto fail = [&](Status st) {
    ReleaseWorkspace(req.state_root, req.name, ws.host_path, true, ws.quota);
    return st;
  };
  if (Status st = RefuseUnheldExplicitLimit(req, ws.quota); !st.ok()) return fail(st);
  if (ws.quota.pool_volume.empty() &&
      ::chown(ws.host_path.c_str(), ws.owner_uid, ws.owner_gid) != 0) {
    return fail(ErrnoStatus("chown the workspace " + ws.host_path));
  }
  if (Status st = SetSandboxIds(req, ws); !st.ok()) return fail(st);
  return ws;
}

StatusOr<Workspace> PrepareGiven(const WorkspaceRequest& req) {
  const std::string& requested = *req.host_dir;
  if (requested.empty()) return InvalidArgument("--workspace: empty path");
  AB_RETURN_IF_ERROR(
      CheckWorkspaceHostPath(ResolveForCheck(requested), ResolveForCheck(req.state_root)));
  const bool existed = PathExists(requested);
  AB_RETURN_IF_ERROR(MakeDirs(requested, 0755).WithContext("create workspace"));
  Workspace ws;
  char resolved[PATH_MAX];
  if (::realpath(requested.c_str(), resolved) == nullptr)
    return ErrnoStatus("workspace " + requested);
  ws.host_path = resolved;
  // Checked again on what the path is now: a symlink swapped in meanwhile changes nothing.
  AB_RETURN_IF_ERROR(CheckWorkspaceHostPath(ws.host_path, ResolveForCheck(req.state_root)));
  struct stat st;
  if (::stat(resolved, &st) != 0) return ErrnoStatus("workspace " + ws.host_path);
  if (!S_ISDIR(st.st_mode))
    return InvalidArgument("workspace " + ws.host_path + " is not a directory");
  const uid_t own_uid = req.fixed_ids ? req.fixed_ids->uid : kSandboxHostUserId;
  const gid_t own_gid = req.fixed_ids ? req.fixed_ids->gid : kSandboxHostUserId;
  // A directory agentbox made, or an empty one of root's: nothing in it is anyone's yet, so the
  // sandbox user may own it outright.
  const bool adopt = !existed || (st.st_uid == 0 && IsEmptyDirectory(ws.host_path));
  if (adopt) {
    if (::chown(resolved, own_uid, own_gid) != 0) return ErrnoStatus("chown " + ws.host_path);
    st.st_uid = own_uid;
    st.st_gid = own_gid;
  } else if (st.st_uid == 0 && !req.allow_root_owned) {
    return InvalidArgument(
        "workspace " + ws.host_path +
        " is owned by root and not empty: the command would act as root on the files in it. "
        "Give a directory of an unprivileged user (chown -R 1000:1000 " +
        ws.host_path +
        "), a new or empty one, or pass --allow-root-owned-workspace to accept that");
  }
  ws.owner_uid = st.st_uid;
  ws.owner_gid = st.st_gid;
  if (!adopt) {
    AB_ASSIGN_OR_RETURN(ScanResult scan, ScanWorkspace(ws.host_path, std::nullopt));
    if (!scan.host_endpoint.empty()) {
      return InvalidArgument("workspace " + ws.host_path + " holds " + scan.host_endpoint +
                             ", a socket or FIFO: a command could talk through it to a host "
                             "process. Remove it, or give a directory without one");
    }
  }
  AB_ASSIGN_OR_RETURN(ws.quota, HoldDirectoryQuota(ws.host_path, req.disk_limit,
                                                   QuotaHoldersDir(req.state_root), req.name));
  auto fail = [&](Status status) {
    ReleaseWorkspace(req.state_root, req.name, ws.host_path, false, ws.quota);
    return status;
  };
  if (Status s = RefuseUnheldExplicitLimit(req, ws.quota); !s.ok()) return fail(s);
  if (Status s = SetSandboxIds(req, ws); !s.ok()) return fail(s);
  return ws;
}

}  // namespace

void ReleaseVolumes(const std::string& state_root, const std::string& prefix) {
  auto pool = WorkspacePool::Open(WorkspaceStorageDir(state_root), /*make=*/false);
  if (!pool.ok()) return;
  for (const std::string& name : pool->VolumeNames()) {
    if (name.rfind(prefix, 0) == 0) (void)pool->DestroyVolume(name);
  }
}

WorkspaceRequest WorkspaceRequestFor(const SandboxSpec& spec, const std::string& state_root,
                                     const std::string& name) {
  WorkspaceRequest r;
  r.host_dir = spec.workspace;
  r.state_root = state_root;
  r.name = name;
  r.disk_limit = spec.limits.disk_bytes;
  r.disk_limit_explicit = spec.disk_limit_explicit;
  r.allow_root_owned = spec.allow_root_owned_workspace;
  return r;
}

std::string WorkspaceStorageDir(const std::string& state_root) { return state_root + "/storage"; }
std::string QuotaHoldersDir(const std::string& state_root) {
  return WorkspaceStorageDir(state_root) + "/projects";
}

StatusOr<Workspace> PrepareWorkspace(const WorkspaceRequest& request) {
  return request.host_dir ? PrepareGiven(request) : PreparePrivate(request);
}

void ReleaseWorkspace(const std::string& state_root, const std::string& name,
                      const std::string& host_path, bool temporary, const WorkspaceQuota& quota) {
  if (!temporary) {
    ReleaseDirectoryQuota(host_path, quota, QuotaHoldersDir(state_root), name);
    return;
  }
  if (!quota.pool_volume.empty()) {
    auto pool = WorkspacePool::Open(WorkspaceStorageDir(state_root), /*make=*/false);
    if (pool.ok()) (void)pool->DestroyVolume(quota.pool_volume);
    return;
  }
  if (!host_path.empty()) RemoveTree(host_path);
}

}  // namespace agentbox
