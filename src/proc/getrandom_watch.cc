#include "proc/getrandom_watch.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "proc/notified_call.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

// Writes the next `count` bytes of `stream` at `address` of `mem`; returns how many landed.
size_t WriteStream(int mem, uint64_t address, size_t count, SeededRandom& stream) {
  unsigned char chunk[16384];
  size_t done = 0;
  while (done < count) {
    const size_t n = count - done < sizeof(chunk) ? count - done : sizeof(chunk);
    stream.Fill(chunk, n);
    const ssize_t w = ::pwrite(mem, chunk, n, static_cast<off_t>(address + done));
    if (w <= 0) break;
    done += static_cast<size_t>(w);
    if (static_cast<size_t>(w) < n) break;
  }
  return done;
}

}  // namespace

std::vector<BpfInstruction> WithGetrandomWatch(const std::vector<BpfInstruction>& program) {
  return WithNotifiedCall(__NR_getrandom, program);
}

bool IsWatchedGetrandom(const struct seccomp_notif& req) {
  return IsNativeCall(req, __NR_getrandom);
}

void AnswerGetrandom(int listener, const struct seccomp_notif& req, SeededRandom& stream) {
  struct seccomp_notif_resp resp;
  std::memset(&resp, 0, sizeof(resp));
  resp.id = req.id;
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%u/mem", req.pid);
  UniqueFd mem(::open(path, O_WRONLY | O_CLOEXEC));
  // After the open, the id check proves the pid was not reused in between.
  if (!mem.valid() || ::ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) != 0) {
    resp.error = -EPERM;
  } else {
    const uint64_t asked = req.data.args[1];
    const size_t count = asked < kMaxGetrandomBytes ? asked : kMaxGetrandomBytes;
    const size_t done = WriteStream(mem.get(), req.data.args[0], count, stream);
    if (done == 0 && count > 0) {
      resp.error = -EFAULT;
    } else {
      resp.val = static_cast<int64_t>(done);
    }
  }
  (void)::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);  // ENOENT: it was killed
}

}  // namespace agentbox
