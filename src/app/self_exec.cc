#include "app/self_exec.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <thread>

#include "proto/agent_protocol.h"
#include "sys/unique_fd.h"

extern char** environ;

namespace agentbox {
namespace {

StatusOr<std::string> ReadAllFrom(int fd) {
  if (::lseek(fd, 0, SEEK_SET) < 0) return ErrnoStatus("lseek");
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

// out_fd/err_fd: -1 for /dev/null; status_fd: -1 for none.
Status SpawnHelper(const std::vector<std::string>& args, int out_fd, int err_fd, int status_fd,
                   bool own_session, pid_t* pid) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (out_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  }
  if (err_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  } else {
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  if (status_fd >= 0) posix_spawn_file_actions_adddup2(&actions, status_fd, kStatusCodeFd);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGTERM, SIGINT, SIGHUP}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (own_session) flags |= POSIX_SPAWN_SETSID;
  posix_spawnattr_setflags(&attr, flags);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The helper's environment is ours (its sandbox gets a clean one), plus where to say why.
  std::vector<std::string> env_strings = {std::string(kStatusFdEnv) + "=" +
                                          std::to_string(kStatusCodeFd)};
  for (char** e = environ; *e != nullptr; ++e) {
    if (!std::string_view(*e).starts_with(std::string(kStatusFdEnv) + "=")) {
      env_strings.emplace_back(*e);
    }
  }
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  int err = ::posix_spawn(pid, args[0].c_str(), &actions, &attr, argv.data(), envp.data());
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

StatusOr<std::string> RunCreateHelper(const std::string& self_exe,
                                      const std::vector<std::string>& create_args) {
  std::vector<std::string> args = {"create"};
  args.insert(args.end(), create_args.begin(), create_args.end());
  return RunSandboxHelper(self_exe, args);
}

StatusOr<std::string> RunSandboxHelper(const std::string& self_exe,
                                       const std::vector<std::string>& helper_args) {
  // memfds, not pipes: the helper's output is read after it exits, and cannot fill a buffer.
  UniqueFd out(::memfd_create("create-stdout", MFD_CLOEXEC));
  UniqueFd err(::memfd_create("create-stderr", MFD_CLOEXEC));
  UniqueFd code(::memfd_create("create-status", MFD_CLOEXEC));
  if (!out.valid() || !err.valid() || !code.valid()) return ErrnoStatus("memfd_create");
  std::vector<std::string> args = {self_exe};
  args.insert(args.end(), helper_args.begin(), helper_args.end());
  pid_t pid = -1;
  AB_RETURN_IF_ERROR(SpawnHelper(args, out.get(), err.get(), code.get(), false, &pid));
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) return ErrnoStatus("waitpid");
  }
  AB_ASSIGN_OR_RETURN(std::string id, ReadAllFrom(out.get()));
  AB_ASSIGN_OR_RETURN(std::string why, ReadAllFrom(err.get()));
  AB_ASSIGN_OR_RETURN(std::string code_name, ReadAllFrom(code.get()));
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && !OneLine(id).empty()) {
    return OneLine(id);
  }
  why = OneLine(why);
  if (why.empty()) why = "the create helper failed (status " + std::to_string(wstatus) + ")";
  // The helper's own Status code, not a guess from its message: a bad name or a refused rootfs
  // is the caller's error (4xx), a host that cannot make a box is 503. A helper that died
  // before saying (a signal, an old binary) is the host's trouble.
  code_name = OneLine(code_name);
  if (code_name.empty() || code_name == "ok") return Unavailable(why);
  return Status(StatusCodeFromName(code_name), why);
}

void SpawnSelfDetached(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/proc/self/exe"};
  argv.insert(argv.end(), args.begin(), args.end());
  pid_t pid = -1;
  if (!SpawnHelper(argv, -1, -1, -1, /*own_session=*/true, &pid).ok()) return;
  std::thread([pid] {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }).detach();
}

}  // namespace agentbox
