#include "proc/process_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace agentbox {
namespace {

// A /proc entry name that is all digits, as a pid; 0 otherwise.
pid_t PidOfName(const char* name) {
  pid_t pid = 0;
  for (const char* p = name; *p; ++p) {
    if (*p < '0' || *p > '9') return 0;
    pid = pid * 10 + (*p - '0');
  }
  return pid;
}

// The parent pid from /proc/PID/stat, "pid (comm) state ppid ...". comm may hold spaces and
// parentheses, so the fields start after the LAST ')'. Returns -1 when the process is gone.
pid_t ParentOf(int proc_fd, const char* name) {
  char path[32];
  int n = 0;
  while (name[n] && n < 20) {
    path[n] = name[n];
    ++n;
  }
  const char kStat[] = "/stat";
  for (char c : kStat) path[n++] = c;
  int fd = ::openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[256];
  ssize_t len = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (len <= 0) return -1;
  const char* close_paren = nullptr;
  for (ssize_t i = 0; i < len; ++i) {
    if (buf[i] == ')') close_paren = buf + i;
  }
  // ") S 123 ...": skip ") ", the state letter and one space.
  if (!close_paren || close_paren + 4 >= buf + len) return -1;
  pid_t ppid = 0;
  for (const char* p = close_paren + 4; p < buf + len && *p >= '0' && *p <= '9'; ++p) {
    ppid = ppid * 10 + (*p - '0');
  }
  return ppid;
}

void CountAndKill(pid_t pid, void* killed) {
  ::kill(pid, SIGKILL);
  ++*static_cast<int*>(killed);
}

}  // namespace

bool ForEachChild(void (*visit)(pid_t pid, void* ctx), void* ctx) {
  int proc_fd = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc_fd < 0) return false;
  const pid_t self = ::getpid();
  // glibc's struct dirent64 has the layout of the kernel's linux_dirent64 (readdir64 reads
  // getdents64 records through it); opendir would allocate.
  alignas(struct dirent64) char buf[4096];
  bool ok = true;
  for (;;) {
    long n = ::syscall(SYS_getdents64, proc_fd, buf, sizeof(buf));
    if (n == 0) break;
    if (n < 0) {
      ok = false;
      break;
    }
    for (long off = 0; off < n;) {
      auto* entry = reinterpret_cast<struct dirent64*>(buf + off);
      off += entry->d_reclen;
      pid_t pid = PidOfName(entry->d_name);
      if (pid > 0 && pid != self && ParentOf(proc_fd, entry->d_name) == self) visit(pid, ctx);
    }
  }
  ::close(proc_fd);
  return ok;
}

void KillAndReapChildren() {
  for (;;) {
    int killed = 0;
    ForEachChild(CountAndKill, &killed);
    // Block only when this round killed someone: then a child is about to die. Otherwise a
    // child the scan missed (reparented mid-scan) may be alive and unsignalled: look again.
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, __WALL | (killed > 0 ? 0 : WNOHANG));
    if (pid > 0 || (pid < 0 && errno == EINTR)) continue;
    if (pid < 0) return;  // ECHILD: no child left at all
    struct timespec pause = {0, 1000 * 1000};
    ::nanosleep(&pause, nullptr);
  }
}

bool BecomeSubreaper() {
  return ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 || errno == EINVAL;
}

}  // namespace agentbox
