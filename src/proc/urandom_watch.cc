#include "proc/urandom_watch.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>

#include "proc/notified_call.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

// What the caller asked: the path's address, the directory it is relative to, the flags.
struct OpenCall {
  uint64_t path = 0;
  int dirfd = AT_FDCWD;
  int flags = 0;
};

OpenCall CallOf(const struct seccomp_notif& req) {
  if (IsNativeCall(req, __NR_openat)) {
    return {req.data.args[1], static_cast<int>(req.data.args[0]),
            static_cast<int>(req.data.args[2])};
  }
  return {req.data.args[0], AT_FDCWD, static_cast<int>(req.data.args[1])};
}

// Only a plain read-only open may become the seeded stream: writers feed the kernel's pool,
// and O_PATH, O_CREAT, O_DIRECTORY (so O_TMPFILE) opens want the file, not its bytes.
bool IsPlainRead(int flags) {
  return (flags & O_ACCMODE) == O_RDONLY && !(flags & (O_PATH | O_CREAT | O_DIRECTORY));
}

// The NUL-terminated path at `address` of `mem`, read in pieces that never cross a page end, so
// that a path near the end of a mapping still reads; "" when it cannot be read or is too long.
std::string ReadPath(int mem, uint64_t address) {
  std::string path;
  char buf[256];
  while (path.size() < PATH_MAX) {
    const uint64_t at = address + path.size();
    const size_t to_page_end = 4096 - (at % 4096);
    const size_t want = to_page_end < sizeof(buf) ? to_page_end : sizeof(buf);
    const ssize_t n = ::pread(mem, buf, want, static_cast<off_t>(at));
    if (n <= 0) return "";
    const void* nul = std::memchr(buf, '\0', static_cast<size_t>(n));
    if (nul) return path.append(buf, static_cast<const char*>(nul) - buf);
    path.append(buf, static_cast<size_t>(n));
  }
  return "";
}

// Whether `path`, resolved as the caller would (from its root, its cwd or `dirfd`), is the
// random or urandom character device.
bool NamesRandomDevice(unsigned pid, const OpenCall& call, const std::string& path) {
  if (path.empty()) return false;
  char base[64];
  if (path[0] == '/') {
    std::snprintf(base, sizeof(base), "/proc/%u/root", pid);
  } else if (call.dirfd == AT_FDCWD) {
    std::snprintf(base, sizeof(base), "/proc/%u/cwd/", pid);
  } else {
    std::snprintf(base, sizeof(base), "/proc/%u/fd/%d/", pid, call.dirfd);
  }
  struct stat st;
  const int follow = (call.flags & O_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0;
  if (::fstatat(AT_FDCWD, (base + path).c_str(), &st, follow) != 0) return false;
  return S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
         (minor(st.st_rdev) == 8 || minor(st.st_rdev) == 9);
}

// Answers with `error`, or with 0: SECCOMP_USER_NOTIF_FLAG_CONTINUE, the kernel's own open.
void Reply(int listener, const struct seccomp_notif& req, int error) {
  struct seccomp_notif_resp resp;
  std::memset(&resp, 0, sizeof(resp));
  resp.id = req.id;
  if (error == 0) {
    resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  } else {
    resp.error = -error;
  }
  (void)::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);  // ENOENT: it was killed
}

constexpr int kKernelsOpen = 0;

// Installs the next stream's pipe in the caller as the call's result: 0 once answered, else the
// errno to answer with (EMFILE: the caller's fd limit, or ours).
int InstallStream(int listener, const struct seccomp_notif& req, int flags, UrandomFeeder& feeder) {
  StatusOr<UniqueFd> read_end = feeder.Open((flags & O_NONBLOCK) != 0);
  if (!read_end.ok()) return EMFILE;
  struct seccomp_notif_addfd addfd;
  std::memset(&addfd, 0, sizeof(addfd));
  addfd.id = req.id;
  addfd.flags = SECCOMP_ADDFD_FLAG_SEND;
  addfd.srcfd = static_cast<uint32_t>(read_end->get());
  addfd.newfd_flags = static_cast<uint32_t>(flags & O_CLOEXEC);
  if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd) >= 0) return 0;
  return errno == ENOENT ? 0 : errno;  // ENOENT: the caller is gone, nothing to answer
}

}  // namespace

std::vector<BpfInstruction> WithOpenWatch(const std::vector<BpfInstruction>& program) {
  return WithNotifiedCall(__NR_openat, WithNotifiedCall(__NR_open, program));
}

bool IsWatchedOpen(const struct seccomp_notif& req) {
  return IsNativeCall(req, __NR_open) || IsNativeCall(req, __NR_openat);
}

void AnswerOpen(int listener, const struct seccomp_notif& req, UrandomFeeder& feeder) {
  const OpenCall call = CallOf(req);
  if (!IsPlainRead(call.flags)) return Reply(listener, req, kKernelsOpen);
  char mem_path[64];
  std::snprintf(mem_path, sizeof(mem_path), "/proc/%u/mem", req.pid);
  UniqueFd mem(::open(mem_path, O_RDONLY | O_CLOEXEC));
  // After the open, the id check proves the pid was not reused in between. A process the
  // supervisor cannot reach (one that made itself non-dumpable) gets the kernel's open.
  if (!mem.valid() || ::ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) != 0 ||
      !NamesRandomDevice(req.pid, call, ReadPath(mem.get(), call.path))) {
    return Reply(listener, req, kKernelsOpen);
  }
  const int error = InstallStream(listener, req, call.flags, feeder);
  if (error != 0) Reply(listener, req, error);
}

bool KernelAtLeast(std::string_view release, int major_wanted, int minor_wanted) {
  int major_seen = 0, minor_seen = 0;
  size_t i = 0;
  auto number = [&](int& out) {
    const size_t start = i;
    while (i < release.size() && release[i] >= '0' && release[i] <= '9' && out < 100000) {
      out = out * 10 + (release[i++] - '0');
    }
    return i > start;
  };
  if (!number(major_seen) || i >= release.size() || release[i++] != '.' || !number(minor_seen)) {
    return false;
  }
  return major_seen > major_wanted || (major_seen == major_wanted && minor_seen >= minor_wanted);
}

Status SeededUrandomSupported() {
  struct utsname host;
  if (::uname(&host) != 0) return ErrnoStatus("uname");
  if (KernelAtLeast(host.release, 5, 14)) return OkStatus();
  return Unavailable(std::string("random_seed needs Linux 5.14 or later (this kernel is ") +
                     host.release +
                     "): a seeded /dev/urandom is installed with SECCOMP_ADDFD_FLAG_SEND");
}

}  // namespace agentbox
