#include "sys/run_program.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "sys/unique_fd.h"

namespace agentbox {
namespace {

constexpr size_t kMaxStderr = 4096;

std::string LastLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  size_t nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

}  // namespace

std::string FindHostProgram(const std::string& name) {
  for (const char* dir : {"/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"}) {
    std::string path = dir + name;
    if (::access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

std::string DescribeExit(int wait_status) {
  return WIFEXITED(wait_status) ? "exited " + std::to_string(WEXITSTATUS(wait_status))
                                : "was killed by signal " + std::to_string(WTERMSIG(wait_status));
}

StatusOr<pid_t> SpawnProgram(const std::string& exe, const std::vector<std::string>& argv,
                             const std::vector<std::string>& env, int stdout_fd, int stderr_fd) {
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  args.push_back(nullptr);
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (stdout_fd < 0) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  } else {
    posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
  }
  if (stderr_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stderr_fd, 2);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigfillset(&defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, exe.c_str(), &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return ErrnoStatus("run " + argv.at(0), rc);
  return pid;
}

Status RunHostProgram(const std::vector<std::string>& argv) {
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return ErrnoStatus("pipe");
  UniqueFd err_read(err_pipe[0]), err_write(err_pipe[1]);
  StatusOr<pid_t> spawned = SpawnProgram(
      argv.at(0), argv, {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}, -1, err_write.get());
  err_write.reset();
  if (!spawned.ok()) return spawned.status();
  const pid_t pid = *spawned;
  std::string err;
  char buf[512];
  for (ssize_t n; (n = ::read(err_read.get(), buf, sizeof(buf))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    if (err.size() < kMaxStderr) err.append(buf, static_cast<size_t>(n));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return OkStatus();
  std::string line = LastLine(err);
  return Unavailable(argv[0] + " " + DescribeExit(status) + (line.empty() ? "" : ": " + line));
}

}  // namespace agentbox
