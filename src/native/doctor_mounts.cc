// Doctor checks for the new mount API and idmapped mounts. The idmap check clones a mount tree
// into a detached fd and idmaps that: closing the fd frees it, nothing is ever attached.
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "native/doctor_internal.h"
#include "sys/file_util.h"
#include "sys/mountinfo.h"
#include "sys/unique_fd.h"

namespace agentbox::doctor_internal {
namespace {

// errno of a call made with invalid flags: EINVAL/EBADF/EFAULT mean "present".
int BadFlagsErrno(long nr, long a, long b, long c, long d, long e) {
  errno = 0;
  return ::syscall(nr, a, b, c, d, e) == 0 ? 0 : errno;
}

DoctorCheck NewMountApiCheck() {
  const std::string layer = "new mount API";
  struct Call {
    const char* name;
    int err;
  } calls[] = {
      {"open_tree", BadFlagsErrno(SYS_open_tree, -1, 0, UINT_MAX, 0, 0)},
      {"move_mount", BadFlagsErrno(SYS_move_mount, -1, 0, -1, 0, UINT_MAX)},
      {"mount_setattr", BadFlagsErrno(SYS_mount_setattr, -1, 0, UINT_MAX, 0, 0)},
  };
  for (const Call& c : calls) {
    if (c.err == ENOSYS) {
      return {layer, false, std::string("kernel lacks ") + c.name + "(2): needs Linux 5.12+"};
    }
    if (c.err == EPERM) {
      return {layer, false,
              std::string(c.name) +
                  "(2) is blocked (EPERM), likely by a seccomp "
                  "profile: allow open_tree, move_mount and mount_setattr"};
    }
  }
  return {layer, true, "open_tree, move_mount and mount_setattr available"};
}

// A child parked in a fresh user namespace with a one-id mapping: the namespace an idmapped mount
// needs. Killed and reaped by the destructor.
class UserNamespaceHolder {
 public:
  StatusOr<int> Start() {
    int hold[2], ready[2];
    if (::pipe2(hold, O_CLOEXEC) != 0) return ErrnoStatus("pipe2");
    UniqueFd hold_read(hold[0]), hold_write(hold[1]);
    if (::pipe2(ready, O_CLOEXEC) != 0) return ErrnoStatus("pipe2");
    UniqueFd ready_read(ready[0]), ready_write(ready[1]);
    pid_ = ::fork();
    if (pid_ < 0) return ErrnoStatus("fork");
    if (pid_ == 0) {
      char c = 'x';
      if (::unshare(CLONE_NEWUSER) != 0) ::_exit(1);
      hold_write.reset();
      (void)::write(ready_write.get(), &c, 1);  // the namespace exists now
      (void)::read(hold_read.get(), &c, 1);     // EOF: the parent is done (or gone)
      ::_exit(0);
    }
    hold_read.reset();
    ready_write.reset();
    keep_alive_ = std::move(hold_write);
    // A signal, not a polling loop: on a loaded host the child may take a while to run.
    struct pollfd pfd = {ready_read.get(), POLLIN, 0};
    char c;
    if (::poll(&pfd, 1, 10000) != 1 || ::read(ready_read.get(), &c, 1) != 1) {
      return Internal("user namespace holder did not start");
    }
    std::string child = "/proc/" + std::to_string(pid_);
    AB_RETURN_IF_ERROR(WriteExistingFile(child + "/uid_map", "0 65534 1"));
    AB_RETURN_IF_ERROR(WriteExistingFile(child + "/gid_map", "0 65534 1"));
    AB_ASSIGN_OR_RETURN(ns_fd_, OpenFile(child + "/ns/user", O_RDONLY));
    return ns_fd_.get();
  }
  ~UserNamespaceHolder() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }

 private:
  pid_t pid_ = -1;
  UniqueFd keep_alive_, ns_fd_;
};

std::string FsTypeOf(const std::string& path) {
  auto text = ReadFile("/proc/self/mountinfo");
  if (!text.ok()) return "?";
  std::string best, type = "?";
  for (const auto& m : ParseMountInfo(*text)) {
    bool under =
        path == m.mount_point || m.mount_point == "/" || path.rfind(m.mount_point + "/", 0) == 0;
    if (under && m.mount_point.size() >= best.size()) best = m.mount_point, type = m.fs_type;
  }
  return type;
}

// 0 when `path`'s filesystem accepts an idmapped mount, else the errno.
int TryIdmap(const std::string& path, int userns_fd) {
  long tree = ::syscall(SYS_open_tree, AT_FDCWD, path.c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
  if (tree < 0) return errno;
  UniqueFd tree_fd(static_cast<int>(tree));  // detached: freed on close
  struct mount_attr attr = {};
  attr.attr_set = MOUNT_ATTR_IDMAP;
  attr.userns_fd = static_cast<uint64_t>(userns_fd);
  return ::syscall(SYS_mount_setattr, tree_fd.get(), "", AT_EMPTY_PATH, &attr, sizeof(attr)) == 0
             ? 0
             : errno;
}

DoctorCheck IdmapCheck() {
  const std::string layer = "idmapped mounts";
  if (::geteuid() != 0) {
    return {layer, true,
            "not needed: not root, so the workspace is never root's (checked as root)"};
  }
  UserNamespaceHolder holder;
  auto ns = holder.Start();
  if (!ns.ok()) return {layer, false, "no user namespace to map into: " + ns.status().message()};
  char cwd_buf[PATH_MAX];
  std::string cwd = ::getcwd(cwd_buf, sizeof(cwd_buf)) ? cwd_buf : "/";
  DoctorCheck check{layer, true, ""};
  // Only a root-owned workspace on a filesystem without idmapped mounts is affected (a user's
  // directory is used as it is, and the workspaces agentbox makes live in its state dir): /tmp,
  // where a scratch workspace most often is, must take one; the current directory is a note.
  struct Place {
    std::string path;
    bool required;
  };
  for (const auto& [path, required] : {Place{"/tmp", true}, Place{cwd, false}}) {
    int err = TryIdmap(path, *ns);
    std::string where = path + " (" + FsTypeOf(path) + ")";
    if (!check.detail.empty()) check.detail += "; ";
    if (err == 0) {
      check.detail += where + ": supported";
      continue;
    }
    if (required) check.ok = false;
    check.detail += where + ": not supported (" + strerror(err) +
                    "); a root-owned workspace there cannot be mapped to the sandbox user: put it "
                    "on ext4, xfs, btrfs or tmpfs (Linux 5.12+; tmpfs 6.3+)";
  }
  return check;
}

}  // namespace

std::vector<DoctorCheck> MountApiChecks() { return {NewMountApiCheck(), IdmapCheck()}; }

}  // namespace agentbox::doctor_internal
