#include "native/workspace.h"

#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string>

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
  if (pid < 0) return ErrnoStatus("clone(CLONE_NEWUSER) for the workspace idmap");
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

StatusOr<std::string> CreateWorkspaceDir(const std::optional<std::string>& requested,
                                         const std::string& private_dir, bool& temporary) {
  if (!requested && !private_dir.empty()) {
    if (::mkdir(private_dir.c_str(), 0700) != 0) return ErrnoStatus("create " + private_dir);
    temporary = true;
    return private_dir;
  }
  if (!requested) {
    const char* tmp = std::getenv("TMPDIR");
    // The pid in the name lets `agentbox gc` tell a crashed run's leftover from a live one.
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + kRunWorkspacePrefix +
                        std::to_string(::getpid()) + "-XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) return ErrnoStatus("create a temporary workspace");
    temporary = true;
    return templ;
  }
  if (requested->empty()) return InvalidArgument("--workspace: empty path");
  AB_RETURN_IF_ERROR(MakeDirs(*requested, 0755).WithContext("create workspace"));
  return *requested;
}

}  // namespace

StatusOr<Workspace> PrepareWorkspace(const std::optional<std::string>& requested,
                                     const std::string& private_dir,
                                     std::optional<SandboxHostIds> fixed_ids) {
  Workspace ws;
  AB_ASSIGN_OR_RETURN(std::string path, CreateWorkspaceDir(requested, private_dir, ws.temporary));
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) return ErrnoStatus("workspace " + path);
  ws.host_path = resolved;
  struct stat st;
  if (::stat(resolved, &st) != 0) return ErrnoStatus("workspace " + ws.host_path);
  if (!S_ISDIR(st.st_mode))
    return InvalidArgument("workspace " + ws.host_path + " is not a directory");
  const uid_t private_uid = fixed_ids ? fixed_ids->uid : kSandboxHostUserId;
  const gid_t private_gid = fixed_ids ? fixed_ids->gid : kSandboxHostUserId;
  if (ws.temporary && ::chown(resolved, private_uid, private_gid) == 0) {
    st.st_uid = private_uid;  // a private dir: owned by the sandbox user, no idmap needed
    st.st_gid = private_gid;
  }
  ws.owner_uid = st.st_uid;
  ws.owner_gid = st.st_gid;
  if (fixed_ids) {
    ws.sandbox_host_uid = fixed_ids->uid;
    ws.sandbox_host_gid = fixed_ids->gid;
  } else {
    ws.sandbox_host_uid = st.st_uid == 0 ? kSandboxHostUserId : st.st_uid;
    ws.sandbox_host_gid = st.st_uid == 0 ? kSandboxHostUserId : st.st_gid;
  }
  if (ws.sandbox_host_uid != ws.owner_uid || ws.sandbox_host_gid != ws.owner_gid) {
    auto tree = MakeIdmappedTree(ws);
    if (!tree.ok()) {
      RemoveTemporaryWorkspace(ws);
      return tree.status();
    }
    ws.idmapped_tree = std::move(tree).value();
  }
  return ws;
}

void RemoveTemporaryWorkspace(const Workspace& ws) {
  if (ws.temporary && !ws.host_path.empty()) RemoveTree(ws.host_path);
}

uint64_t DiskUsageBytes(const std::string& dir) {
  static thread_local uint64_t total;
  total = 0;
  auto add = [](const char*, const struct stat* st, int type, struct FTW*) {
    if (type == FTW_F || type == FTW_SL || type == FTW_D)
      total += static_cast<uint64_t>(st->st_blocks) * 512;
    return 0;
  };
  ::nftw(dir.c_str(), add, 16, FTW_PHYS | FTW_MOUNT);
  return total;
}

}  // namespace agentbox
