#include "proc/fallocate_watch.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
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

#include "sys/fd_passing.h"
#include "sys/syscalls.h"

namespace agentbox {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_AARCH64;
#else
#error "the fallocate watch names the native audit architecture"
#endif

// fallocate of the native ABI goes to the listener; everything else is left to the sandbox's own
// filter (which kills foreign ABIs and x32, whose numbers never equal this one).
const struct sock_filter kWatchFilter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kNativeArch, 0, 3),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fallocate, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

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

StatusOr<WatchChannel> MakeWatchChannel(const std::string& workspace) {
  WatchChannel channel;
  struct stat st;
  if (::stat(workspace.c_str(), &st) != 0) return ErrnoStatus("stat " + workspace);
  channel.workspace_dev = st.st_dev;
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return ErrnoStatus("socketpair for the fallocate watch");
  }
  channel.supervisor.reset(pair[0]);
  channel.child.reset(pair[1]);
  return channel;
}

bool InstallFallocateWatch(int channel) {
  struct sock_fprog prog = {};
  prog.len = static_cast<unsigned short>(sizeof(kWatchFilter) / sizeof(kWatchFilter[0]));
  prog.filter = const_cast<struct sock_filter*>(kWatchFilter);
  int listener = static_cast<int>(
      ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog));
  if (listener < 0) {  // nothing attached: nothing to watch with, nothing changed
    ::close(channel);
    return true;
  }
  char byte = 'L';
  bool sent = sys::SendWithFd(channel, &byte, 1, listener) == 1;
  int saved = errno;
  ::close(listener);
  ::close(channel);
  errno = saved;
  return sent;
}

FallocateWatch::FallocateWatch(UniqueFd channel, dev_t workspace_dev)
    : channel_(std::move(channel)), workspace_dev_(workspace_dev) {}

int FallocateWatch::fd() const {
  if (listener_.valid()) return listener_.get();
  return channel_.get();
}

void FallocateWatch::OnReady(short revents) {
  if (!listener_.valid()) {
    if (channel_.valid()) ReceiveListener();
    return;
  }
  if (revents & POLLIN) {
    HandleNotification();
  } else if (revents & (POLLHUP | POLLERR)) {
    listener_.reset();  // every process of the filter is gone
  }
}

void FallocateWatch::ReceiveListener() {
  char byte;
  int fd = -1;
  ssize_t n = sys::ReceiveWithFd(channel_.get(), &byte, 1, &fd, MSG_DONTWAIT);
  if (n < 0 && errno == EAGAIN) return;
  listener_.reset(fd);
  channel_.reset();  // the listener, or EOF: nothing more comes this way
}

void FallocateWatch::HandleNotification() {
  struct seccomp_notif req;
  std::memset(&req, 0, sizeof(req));  // the kernel refuses a buffer that is not zeroed
  if (::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) return;  // ENOENT: gone
  int answer = kLetThrough;
  UniqueFd target(OpenProcessOf(static_cast<pid_t>(req.pid)));
  // After the pidfd, the id check proves the pid was not reused in between.
  if (target.valid() && ::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) == 0) {
    UniqueFd file(static_cast<int>(
        ::syscall(SYS_pidfd_getfd, target.get(), static_cast<int>(req.data.args[0]), 0)));
    struct stat st;
    const int mode = static_cast<int>(req.data.args[1]);
    const uint64_t offset = req.data.args[2], len = req.data.args[3];
    if (file.valid() && ::fstat(file.get(), &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_dev == workspace_dev_ &&
        !CrossesFileSizeLimit(static_cast<pid_t>(req.pid), mode, offset, len)) {
      answer = FallocateAsNobodySpecial(file.get(), mode, static_cast<off_t>(offset),
                                        static_cast<off_t>(len));
      if (answer == EDQUOT || answer == ENOSPC) refused_ = true;
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
  (void)::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_SEND, &resp);  // ENOENT: it was killed
}

}  // namespace agentbox
