#include "sys/program_output.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "sys/run_program.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

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
    if (n == 0) {
      return Unavailable(run.argv[0] + " did not finish in " + std::to_string(run.timeout_ms) +
                         " ms");
    }
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
  AB_ASSIGN_OR_RETURN(pid_t pid, SpawnProgram(exe, run.argv, run.env, out_write.get(), -1));
  out_write.reset();
  std::string out;
  Status read = ReadAll(out_read.get(), run, out);
  if (!read.ok()) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!read.ok()) return read;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return out;
  return Unavailable(name + " " + DescribeExit(status));
}

}  // namespace agentbox
