#include "proc/exec_go.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "sys/fd_passing.h"

namespace agentbox {
namespace {

// argv and environment are bounded by the exec frame (kMaxFramePayload) long before this.
constexpr uint64_t kMaxGoBytes = 64ull << 20;

// "cwd\0argc\0argv...\0envc\0env...\0": every field NUL-terminated, so the init's argv
// and envp can point straight into the received bytes.
std::string Encode(const CommandLaunch& plan) {
  std::string out;
  auto add = [&out](const std::string& field) {
    out += field;
    out += '\0';
  };
  add(plan.cwd);
  for (const std::vector<char*>* list : {&plan.argv, &plan.envp}) {
    size_t count = list->empty() ? 0 : list->size() - 1;  // without the null terminator
    add(std::to_string(count));
    for (size_t i = 0; i < count; ++i) add((*list)[i]);
  }
  return out;
}

bool ReadExactly(int fd, char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Reads the next NUL-terminated field of [*pos, end); null when none is left.
char* NextField(char** pos, char* end) {
  if (*pos >= end) return nullptr;
  char* field = *pos;
  char* nul = static_cast<char*>(std::memchr(field, '\0', static_cast<size_t>(end - field)));
  if (!nul) return nullptr;
  *pos = nul + 1;
  return field;
}

bool NextCount(char** pos, char* end, uint64_t* value) {
  char* field = NextField(pos, end);
  if (!field || !*field) return false;
  char* stop = nullptr;
  errno = 0;
  *value = std::strtoull(field, &stop, 10);
  return errno == 0 && *stop == '\0';
}

}  // namespace

Status SendGo(int go_fd, const CommandLaunch& plan) {
  std::string payload = Encode(plan);
  uint64_t size = payload.size();
  if (sys::SendWithFd(go_fd, &size, sizeof(size), plan.stdin_fd) !=
      static_cast<ssize_t>(sizeof(size))) {
    return ErrnoStatus("send the exec to its init");
  }
  for (size_t off = 0; off < payload.size();) {
    ssize_t n = ::send(go_fd, payload.data() + off, payload.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoStatus("send the exec to its init");
    off += static_cast<size_t>(n);
  }
  return OkStatus();
}

bool ReceiveGo(CommandLaunch& plan) {
  static std::string payload;  // argv and envp point into it until exec
  uint64_t size = 0;
  ssize_t n = sys::ReceiveWithFd(plan.go_fd, &size, sizeof(size), &plan.stdin_fd, MSG_WAITALL);
  if (n != static_cast<ssize_t>(sizeof(size)) || plan.stdin_fd < 0 || size > kMaxGoBytes) {
    return false;
  }
  payload.resize(size);
  if (!ReadExactly(plan.go_fd, payload.data(), payload.size())) return false;
  ::close(plan.go_fd);
  plan.go_fd = -1;

  char* pos = payload.data();
  char* end = pos + payload.size();
  uint64_t count = 0;
  char* cwd = NextField(&pos, end);
  if (!cwd) return false;
  plan.cwd = cwd;
  for (std::vector<char*>* list : {&plan.argv, &plan.envp}) {
    if (!NextCount(&pos, end, &count)) return false;
    list->clear();
    for (uint64_t i = 0; i < count; ++i) {
      char* field = NextField(&pos, end);
      if (!field) return false;
      list->push_back(field);
    }
    list->push_back(nullptr);
  }
  return !plan.argv.empty() && plan.argv[0] != nullptr;
}

}  // namespace agentbox
