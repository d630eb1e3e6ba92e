#include "proc/fallocate_watch.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "proc/notified_call.h"
#include "sys/syscalls.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

// The smaller of this process's and `pid`'s RLIMIT_FSIZE; 0 when `pid`'s cannot be read (so the
// caller lets the call through: the kernel then applies the command's own limit).
rlim_t FileSizeLimit(pid_t pid) {
  struct rlimit theirs = {}, ours = {};
  if (::prlimit(pid, RLIMIT_FSIZE, nullptr, &theirs) != 0 ||
      ::getrlimit(RLIMIT_FSIZE, &ours) != 0) {
    return 0;
  }
  return theirs.rlim_cur < ours.rlim_cur ? theirs.rlim_cur : ours.rlim_cur;
}

// A call that would grow the file past a file-size limit must be the command's own: the kernel
// then answers EFBIG and sends SIGXFSZ to it, not to its supervisor.
bool CrossesFileSizeLimit(pid_t pid, int mode, uint64_t offset, uint64_t len) {
  if (mode & FALLOC_FL_KEEP_SIZE) return false;
  rlim_t limit = FileSizeLimit(pid);
  if (limit == RLIM_INFINITY) return false;
  return offset > limit || len > limit - offset;
}

// fallocate with this thread's effective capabilities cleared for the call, so the supervisor's
// privilege changes nothing the kernel decides: CAP_SYS_RESOURCE would pass quota hard limits and
// reserved blocks, CAP_FSETID would keep a set-id bit the write should clear. capset(2) changes
// only the calling thread.
int FallocateAsNobodySpecial(int fd, int mode, off_t offset, off_t len) {
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct saved[2] = {}, cleared[2] = {};
  bool restore = false;
  if (::syscall(SYS_capget, &header, saved) == 0 && (saved[0].effective || saved[1].effective)) {
    std::memcpy(cleared, saved, sizeof(saved));
    cleared[0].effective = cleared[1].effective = 0;
    if (::syscall(SYS_capset, &header, cleared) != 0) return EPERM;  // never call with them
    restore = true;
  }
  int err = ::fallocate(fd, mode, offset, len) == 0 ? 0 : errno;
  if (restore) ::syscall(SYS_capset, &header, saved);
  return err;
}

constexpr int kLetThrough = -1;

// A pidfd for the process of thread `tid`: pidfd_open takes only a thread-group leader (before
// Linux 6.9 any other thread is ENOENT or EINVAL), and a call from another thread names that
// thread. Its fd table is the process's.
UniqueFd OpenProcessOf(pid_t tid) {
  UniqueFd pidfd(sys::PidfdOpen(tid));
  if (pidfd.valid()) return pidfd;
  char path[64], line[128];
  std::snprintf(path, sizeof(path), "/proc/%d/status", static_cast<int>(tid));
  FILE* status = std::fopen(path, "re");
  if (!status) return pidfd;
  pid_t tgid = 0;
  while (std::fgets(line, sizeof(line), status)) {
    if (std::sscanf(line, "Tgid: %d", &tgid) == 1) break;
  }
  std::fclose(status);
  if (tgid > 0 && tgid != tid) pidfd.reset(sys::PidfdOpen(tgid));
  return pidfd;
}

}  // namespace

std::vector<BpfInstruction> WithFallocateWatch(const std::vector<BpfInstruction>& program) {
  return WithNotifiedCall(__NR_fallocate, program);
}

bool IsWatchedFallocate(const struct seccomp_notif& req) {
  return IsNativeCall(req, __NR_fallocate);
}

bool AnswerFallocate(int listener, const struct seccomp_notif& req, dev_t workspace_dev) {
  int answer = kLetThrough;
  UniqueFd target(OpenProcessOf(static_cast<pid_t>(req.pid)));
  // After the pidfd, the id check proves the pid was not reused in between.
  if (target.valid() && ::ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) == 0) {
    UniqueFd file(static_cast<int>(
        ::syscall(SYS_pidfd_getfd, target.get(), static_cast<int>(req.data.args[0]), 0)));
    struct stat st;
    const int mode = static_cast<int>(req.data.args[1]);
    const uint64_t offset = req.data.args[2], len = req.data.args[3];
    if (file.valid() && ::fstat(file.get(), &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_dev == workspace_dev &&
        !CrossesFileSizeLimit(static_cast<pid_t>(req.pid), mode, offset, len)) {
      answer = FallocateAsNobodySpecial(file.get(), mode, static_cast<off_t>(offset),
                                        static_cast<off_t>(len));
    }
  }
  struct seccomp_notif_resp resp;
  std::memset(&resp, 0, sizeof(resp));
  resp.id = req.id;
  if (answer == kLetThrough) {
    resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  } else {
    resp.error = -answer;
  }
  (void)::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);  // ENOENT: it was killed
  return answer == EDQUOT || answer == ENOSPC;
}

}  // namespace agentbox
