#include "app/server/sandbox_creator.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "sys/file_util.h"
#include "sys/unique_fd.h"

extern char** environ;

namespace agentbox {
namespace {

// The policy goes through a 0600 file in the state dir, not argv: argv is world-readable in
// /proc, and a policy's env values may be secrets.
class PolicyFile {
 public:
  static StatusOr<PolicyFile> Write(const std::string& dir, const std::string& text) {
    std::string path = dir + "/.serve-policy-XXXXXX";
    int fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("mkstemp in " + dir);
    UniqueFd owned(fd);
    PolicyFile file(path);
    for (std::string_view rest = text; !rest.empty();) {
      ssize_t n = ::write(fd, rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return ErrnoStatus("write " + path);
      rest.remove_prefix(static_cast<size_t>(n));
    }
    return file;
  }
  PolicyFile(PolicyFile&& other) noexcept : path_(std::exchange(other.path_, {})) {}
  ~PolicyFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  explicit PolicyFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

StatusOr<std::string> ReadAllFrom(int fd) {
  if (::lseek(fd, 0, SEEK_SET) < 0) return ErrnoStatus("lseek");
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

// The server blocks SIGTERM in every thread and ignores SIGPIPE; the helper must not inherit
// either, or a stuck helper could not be stopped.
Status SpawnHelper(const std::vector<std::string>& args, int out_fd, int err_fd, pid_t* pid) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGTERM, SIGINT, SIGHUP}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int err = ::posix_spawn(pid, args[0].c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return err == 0 ? OkStatus() : ErrnoStatus("spawn " + args[0], err);
}

std::string OneLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.starts_with("agentbox: ")) text.erase(0, 10);
  for (char& c : text) c = c == '\n' ? ' ' : c;
  return text;
}

}  // namespace

StatusOr<std::string> CreateSandboxInHelper(const std::string& self_exe,
                                            const std::string& state_root,
                                            const nlohmann::json& policy, const std::string& name) {
  AB_RETURN_IF_ERROR(MakeDirs(state_root, 0700));
  AB_ASSIGN_OR_RETURN(PolicyFile file, PolicyFile::Write(state_root, policy.dump()));
  UniqueFd out(::memfd_create("create-stdout", MFD_CLOEXEC));
  UniqueFd err(::memfd_create("create-stderr", MFD_CLOEXEC));
  if (!out.valid() || !err.valid()) return ErrnoStatus("memfd_create");
  std::vector<std::string> args = {self_exe, "create", "--policy", file.path()};
  if (!name.empty()) args.insert(args.end(), {"--name", name});
  pid_t pid = -1;
  AB_RETURN_IF_ERROR(SpawnHelper(args, out.get(), err.get(), &pid));
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) return ErrnoStatus("waitpid");
  }
  AB_ASSIGN_OR_RETURN(std::string id, ReadAllFrom(out.get()));
  AB_ASSIGN_OR_RETURN(std::string why, ReadAllFrom(err.get()));
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && !OneLine(id).empty()) {
    return OneLine(id);
  }
  why = OneLine(why);
  if (why.empty()) why = "the create helper failed (status " + std::to_string(wstatus) + ")";
  if (why.find("already") != std::string::npos) return AlreadyExists(why);
  if (why.find("policy") != std::string::npos) return InvalidArgument(why);
  return Unavailable(why);
}

}  // namespace agentbox
