#include "app/mcp/mcp_session.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

extern char** environ;

namespace agentbox {
namespace {

// Reads fd to EOF; the helper's output is one short line, but a loop costs nothing.
std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::string Trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

struct Pipe {
  int fds[2] = {-1, -1};
  ~Pipe() {
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
  void CloseWrite() {
    ::close(fds[1]);
    fds[1] = -1;
  }
};

// The helper gets /dev/null as stdin and our pipes as stdout and stderr: it must never write
// on this process's stdout, which is the MCP channel.
StatusOr<pid_t> SpawnHelper(const std::vector<std::string>& args, Pipe& out, Pipe& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fds[1], 2);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The stdio transport blocks its end signals and ignores SIGPIPE; the helper, and the
  // sandbox it starts, must begin with neither.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGTERM, SIGINT, SIGHUP}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return ErrnoStatus("cannot start " + args[0], rc);
  return pid;
}

}  // namespace

StatusOr<std::string> CreateSandboxInHelper(const std::string& binary,
                                            const std::string& policy_path) {
  std::vector<std::string> args = {binary, "create"};
  if (!policy_path.empty()) args.insert(args.end(), {"--policy", policy_path});
  Pipe out, err;
  if (::pipe2(out.fds, O_CLOEXEC) != 0 || ::pipe2(err.fds, O_CLOEXEC) != 0) {
    return ErrnoStatus("pipe");
  }
  AB_ASSIGN_OR_RETURN(pid_t pid, SpawnHelper(args, out, err));
  out.CloseWrite();
  err.CloseWrite();
  std::string id = Trim(ReadAll(out.fds[0]));
  std::string error = Trim(ReadAll(err.fds[0]));
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && !id.empty()) return id;
  if (error.rfind("agentbox: ", 0) == 0) error = error.substr(10);
  return Unavailable("cannot create the session's sandbox: " +
                     (error.empty() ? std::string("agentbox create failed") : error));
}

McpSession::~McpSession() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (owned_ && record_ && manager_) (void)manager_->Remove(record_->id, /*force=*/true);
}

StatusOr<SandboxRecord> McpSession::Sandbox() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!record_) AB_RETURN_IF_ERROR(Acquire());
  return *record_;
}

Status McpSession::Acquire() {
  if (!manager_) {
    AB_ASSIGN_OR_RETURN(SandboxManager manager, SandboxManager::Open());
    manager_.emplace(std::move(manager));
  }
  std::string ref = options_.sandbox;
  const bool create = ref.empty();
  if (create) {
    const std::string binary =
        options_.agentbox_binary.empty() ? "/proc/self/exe" : options_.agentbox_binary;
    AB_ASSIGN_OR_RETURN(ref, CreateSandboxInHelper(binary, options_.policy_path));
  }
  auto found = manager_->Find(ref);
  if (!found.ok()) {
    if (create) (void)manager_->Remove(ref, /*force=*/true);
    return found.status();
  }
  if (found->state != SandboxState::kRunning) {
    if (create) (void)manager_->Remove(ref, /*force=*/true);
    return Unavailable("sandbox " + ref + " is not running");
  }
  // Backends cache host facts lazily (the native one its cgroup layout) without a lock; one
  // reading here, under our mutex, fills those caches before tool calls run Exec in parallel.
  (void)manager_->InspectJson(found->record.id);
  record_ = found->record;
  owned_ = create;
  return OkStatus();
}

}  // namespace agentbox
