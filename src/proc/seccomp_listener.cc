#include "proc/seccomp_listener.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "policy/seccomp_match.h"
#include "policy/seccomp_program.h"
#include "proc/fallocate_watch.h"
#include "proc/getrandom_watch.h"
#include "proc/urandom_watch.h"
#include "sys/fd_passing.h"

namespace agentbox {
namespace {

long AttachFilter(const std::vector<BpfInstruction>& program, unsigned flags) {
  struct sock_fprog prog = {};
  prog.len = static_cast<unsigned short>(program.size());
  // BpfInstruction has the layout of struct sock_filter (checked in native_run.cc).
  prog.filter = reinterpret_cast<struct sock_filter*>(const_cast<BpfInstruction*>(program.data()));
  return ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

// The name of the thread `pid` names (its comm), "" if it cannot be read.
std::string CommandNameOf(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/comm", static_cast<int>(pid));
  UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return "";
  char name[32];
  ssize_t n = ::read(fd.get(), name, sizeof(name) - 1);
  if (n <= 0) return "";
  if (name[n - 1] == '\n') --n;
  return std::string(name, static_cast<size_t>(n));
}

}  // namespace

void UseListenedFilter(CommandLaunch& command, bool watch_fallocate, bool watch_getrandom) {
  static const std::vector<BpfInstruction> fallocate =
      WithFallocateWatch(NotifyingSeccompProgram());
  // Seeded: getrandom first (the more frequent), then open and openat for /dev/urandom.
  static const std::vector<BpfInstruction> getrandom =
      WithGetrandomWatch(WithOpenWatch(NotifyingSeccompProgram()));
  static const std::vector<BpfInstruction> both = WithGetrandomWatch(WithOpenWatch(fallocate));
  const std::vector<BpfInstruction>* programs[2][2] = {{&NotifyingSeccompProgram(), &getrandom},
                                                       {&fallocate, &both}};
  command.seccomp = programs[watch_fallocate][watch_getrandom];
  // Seeded: no listener is no seeded getrandom, and real bytes would be a lie; fail instead.
  static const std::vector<BpfInstruction> none;
  command.seccomp_without_listener = watch_getrandom ? &none : &DefaultSeccompProgram();
}

StatusOr<ListenerChannel> MakeListenerChannel(const std::string& workspace, bool watch_fallocate,
                                              std::optional<uint64_t> random_seed) {
  ListenerChannel channel;
  channel.watch_fallocate = watch_fallocate;
  channel.random_seed = random_seed;
  struct stat st;
  if (::stat(workspace.c_str(), &st) != 0) return ErrnoStatus("stat " + workspace);
  channel.workspace_dev = st.st_dev;
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return ErrnoStatus("socketpair for the seccomp listener");
  }
  channel.supervisor.reset(pair[0]);
  channel.child.reset(pair[1]);
  return channel;
}

bool AttachFilterAndSendListener(const std::vector<BpfInstruction>& with_listener,
                                 const std::vector<BpfInstruction>& without, int channel) {
  const long listener = AttachFilter(with_listener, SECCOMP_FILTER_FLAG_NEW_LISTENER);
  if (listener < 0) {
    // No listener on this kernel (EINVAL: gVisor, or before 5.0; EBUSY: one is in our chain
    // already): the kernel answers the denials itself. Closing the channel says so.
    const int saved = errno;
    ::close(channel);
    if (without.empty()) {  // what the listener was for cannot be done without it
      errno = saved;
      return false;
    }
    return AttachFilter(without, 0) == 0;
  }
  char byte = 'L';
  bool sent = sys::SendWithFd(channel, &byte, 1, static_cast<int>(listener)) == 1;
  int saved = errno;
  ::close(static_cast<int>(listener));
  ::close(channel);
  errno = saved;
  return sent;
}

SeccompListener::SeccompListener(UniqueFd channel, bool watch_fallocate, dev_t workspace_dev,
                                 std::optional<uint64_t> random_seed)
    : channel_(std::move(channel)),
      watch_fallocate_(watch_fallocate),
      workspace_dev_(workspace_dev) {
  if (random_seed) {
    random_.emplace(*random_seed);
    urandom_ = std::make_unique<UrandomFeeder>(*random_seed);
  }
}

SeccompListener::~SeccompListener() = default;

int SeccompListener::fd() const {
  if (listener_.valid()) return listener_.get();
  return channel_.get();
}

void SeccompListener::OnReady(short revents) {
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

void SeccompListener::ReceiveListener() {
  char byte;
  int fd = -1;
  ssize_t n = sys::ReceiveWithFd(channel_.get(), &byte, 1, &fd, MSG_DONTWAIT);
  if (n < 0 && errno == EAGAIN) return;
  listener_.reset(fd);
  observed_ = listener_.valid();
  channel_.reset();  // the listener, or EOF: nothing more comes this way
}

void SeccompListener::HandleNotification() {
  struct seccomp_notif req;
  std::memset(&req, 0, sizeof(req));  // the kernel refuses a buffer that is not zeroed
  if (::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) return;  // ENOENT: gone
  if (watch_fallocate_ && IsWatchedFallocate(req)) {
    if (AnswerFallocate(listener_.get(), req, workspace_dev_)) disk_refused_ = true;
    return;
  }
  if (random_ && IsWatchedGetrandom(req)) {
    AnswerGetrandom(listener_.get(), req, *random_);
    return;
  }
  uint64_t args[6];
  for (int i = 0; i < 6; ++i) args[i] = req.data.args[i];
  const SeccompRule* rule = DenyingRule(req.data.nr, args);
  // An open the filter denies (a set-id mode) is answered below as the filter would have.
  if (urandom_ && rule == nullptr && IsWatchedOpen(req)) {
    AnswerOpen(listener_.get(), req, *urandom_);
    return;
  }
  // Named while it waits (before the answer lets it go on, or exit).
  CountDenial(rule, static_cast<pid_t>(req.pid));
  struct seccomp_notif_resp resp;
  std::memset(&resp, 0, sizeof(resp));
  resp.id = req.id;
  resp.error = -(rule ? rule->errno_value : EPERM);
  (void)::ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_SEND, &resp);  // ENOENT: it was killed
}

void SeccompListener::CountDenial(const SeccompRule* rule, pid_t pid) {
  for (DeniedSyscall& d : denied_) {
    if (d.rule == rule) {
      ++d.count;
      return;
    }
  }
  denied_.push_back({rule, 1, CommandNameOf(pid)});
}

}  // namespace agentbox
