#include "app/server/sandbox_creator.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "app/self_exec.h"
#include "sys/file_util.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

// .serve-policy-<pid of the server>-XXXXXX: the pid tells a live server's file from a dead one's.
constexpr std::string_view kPolicyPrefix = ".serve-policy-";

// The policy goes through a 0600 file in the state dir, not argv: argv is world-readable in
// /proc, and a policy's env values may be secrets.
class PolicyFile {
 public:
  static StatusOr<PolicyFile> Write(const std::string& dir, const std::string& text) {
    std::string path =
        dir + "/" + std::string(kPolicyPrefix) + std::to_string(::getpid()) + "-XXXXXX";
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

bool ProcessExists(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

}  // namespace

void RemoveStalePolicyFiles(const std::string& state_root) {
  auto names = ListDir(state_root);
  if (!names.ok()) return;
  for (const std::string& name : *names) {
    if (!name.starts_with(kPolicyPrefix)) continue;
    // A name without a pid is from a server that predates the pid: long gone.
    pid_t creator = static_cast<pid_t>(std::atoi(name.c_str() + kPolicyPrefix.size()));
    if (creator == ::getpid() || ProcessExists(creator)) continue;
    ::unlink((state_root + "/" + name).c_str());
  }
}

StatusOr<std::string> CreateSandboxInHelper(const std::string& self_exe,
                                            const std::string& state_root,
                                            const nlohmann::json& policy, const std::string& name,
                                            const SandboxTenant& tenant) {
  AB_RETURN_IF_ERROR(MakeDirs(state_root, 0700));
  AB_ASSIGN_OR_RETURN(PolicyFile file, PolicyFile::Write(state_root, policy.dump()));
  // --no-pull: the server never fetches an image (docs/api.md): not for a tenant's choice of
  // registry, and not for 15 minutes inside one request.
  std::vector<std::string> args = {"--policy", file.path(), "--no-pull"};
  if (!name.empty()) args.insert(args.end(), {"--name", name});
  if (!tenant.tenant.empty()) args.insert(args.end(), {"--tenant", tenant.tenant});
  if (!tenant.name.empty()) args.insert(args.end(), {"--tenant-name", tenant.name});
  if (!tenant.mcp_session.empty()) {
    args.insert(args.end(), {"--mcp-session", tenant.mcp_session});
  }
  return RunCreateHelper(self_exe, args);
}

}  // namespace agentbox
