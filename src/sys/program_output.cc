#include "sys/program_output.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "sys/unique_fd.h"

namespace agentbox {
namespace {

StatusOr<pid_t> Spawn(const std::string& exe, const ProgramRun& run, int out_fd) {
  std::vector<char*> args, env;
  for (const std::string& a : run.argv) args.push_back(const_cast<char*>(a.c_str()));
  for (const std::string& e : run.env) env.push_back(const_cast<char*>(e.c_str()));
  args.push_back(nullptr);
  env.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigfillset(&defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, exe.c_str(), &actions, &attr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return ErrnoStatus("run " + run.argv[0], rc);
  return pid;
}

// Reads until EOF; a Status when the deadline passes or the output is too long.
Status ReadAll(int fd, const ProgramRun& run, std::string& out) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(run.timeout_ms);
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    struct pollfd p = {fd, POLLIN, 0};
    int n = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
    if (n < 0 && errno == EINTR) continue;
    if (n == 0)
      return Unavailable(run.argv[0] + " did not finish in " +
                         std::to_string(run.timeout_ms / 1000) + " s");
    ssize_t got = ::read(fd, buf, sizeof(buf));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return OkStatus();
    if (out.size() + static_cast<size_t>(got) > run.max_output) {
      return Unavailable(run.argv[0] + " wrote more than " + std::to_string(run.max_output) +
                         " bytes");
    }
    out.append(buf, static_cast<size_t>(got));
  }
}

}  // namespace

std::string FindOnPath(const std::string& name, const std::string& path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t colon = path.find(':', start);
    if (colon == std::string::npos) colon = path.size();
    std::string dir = path.substr(start, colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = colon + 1;
  }
  return "";
}

StatusOr<std::string> RunForOutput(const ProgramRun& run) {
  const std::string& name = run.argv.at(0);
  std::string exe = name.find('/') != std::string::npos ? name : FindOnPath(name, run.path);
  if (exe.empty()) return Unavailable(name + ": not found on PATH");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoStatus("pipe");
  UniqueFd out_read(fds[0]), out_write(fds[1]);
  AB_ASSIGN_OR_RETURN(pid_t pid, Spawn(exe, run, out_write.get()));
  out_write.reset();
  std::string out;
  Status read = ReadAll(out_read.get(), run, out);
  if (!read.ok()) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!read.ok()) return read;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return out;
  return Unavailable(name + (WIFEXITED(status)
                                 ? " exited " + std::to_string(WEXITSTATUS(status))
                                 : " was killed by signal " + std::to_string(WTERMSIG(status))));
}

}  // namespace agentbox
