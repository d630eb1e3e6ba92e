// `agentbox cp SRC ID:PATH` and `agentbox cp ID:PATH DST`: files and directories, both ways,
// through the sandbox's agent, which resolves every path strictly beneath /workspace.
#include <dirent.h>
#include <sys/stat.h>

#include "app/backends.h"
#include "app/cli.h"
#include "core/agent_files.h"
#include "core/sandbox_activity.h"
#include "core/sandbox_manager.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

// Bigger files are refused rather than held in memory (cp is for code and data, not disks).
constexpr uint64_t kMaxCopyBytes = 256 * kMiB;

struct SandboxPath {
  std::string ref, path;
};

bool SplitSandboxPath(const std::string& arg, SandboxPath& out) {
  size_t colon = arg.find(':');
  if (colon == std::string::npos || colon == 0 || arg[0] == '/' || arg[0] == '.') return false;
  out = {arg.substr(0, colon), arg.substr(colon + 1)};
  if (out.path.empty()) out.path = "/workspace";
  return true;
}

std::string BaseName(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Join(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

// Through the manager, so the sandbox's session log records each file and directory.
Status CopyIn(SandboxManager& manager, const SandboxRecord& record, const std::string& src,
              const std::string& dst, uint64_t limit) {
  struct stat st;
  if (::lstat(src.c_str(), &st) != 0) return ErrnoStatus(src);
  if (S_ISDIR(st.st_mode)) {
    Status made = manager.MakeWorkspaceDir(record, dst, true);
    if (!made.ok()) return made;
    AB_ASSIGN_OR_RETURN(std::vector<std::string> names, ListDir(src));
    for (const std::string& name : names) {
      AB_RETURN_IF_ERROR(CopyIn(manager, record, Join(src, name), Join(dst, name), limit));
    }
    return OkStatus();
  }
  if (!S_ISREG(st.st_mode)) return InvalidArgument(src + ": only files and directories are copied");
  if (static_cast<uint64_t>(st.st_size) > limit) {
    return ResourceExhausted(src + " is " + std::to_string(st.st_size) +
                             " bytes, more than the copy limit of " + std::to_string(limit));
  }
  AB_ASSIGN_OR_RETURN(std::string data, ReadFile(src));
  return manager.WriteWorkspaceFile(record, dst, data, st.st_mode & 0777, true);
}

Status CopyOut(const std::string& socket, const std::string& src, const std::string& dst) {
  AB_ASSIGN_OR_RETURN(AgentFileInfo info, AgentStat(socket, src));
  if (info.type == "dir") {
    if (::mkdir(dst.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoStatus(dst);
    AB_ASSIGN_OR_RETURN(std::vector<AgentDirEntry> entries, AgentListDir(socket, src));
    for (const AgentDirEntry& e : entries) {
      AB_RETURN_IF_ERROR(CopyOut(socket, Join(src, e.name), Join(dst, e.name)));
    }
    return OkStatus();
  }
  if (info.type != "file") return InvalidArgument(src + ": only files and directories are copied");
  AB_ASSIGN_OR_RETURN(std::string data, AgentReadFile(socket, src, kMaxCopyBytes));
  return WriteFile(dst, data, info.mode & 0777);
}

bool IsHostDir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

int CpSubcommand(const Args& args) {
  if (args.size() == 1 && (args[0] == "-h" || args[0] == "--help")) {
    WriteStdout(
        "Usage: agentbox cp SRC ID:PATH | agentbox cp ID:PATH DST\n\n"
        "Copies files or directories between the host and a sandbox's /workspace.\n"
        "PATH is relative to /workspace or starts with /workspace; nothing outside it is\n"
        "reachable.\n");
    return 0;
  }
  if (args.size() != 2)
    return FailWith(InvalidArgument("usage: agentbox cp SRC ID:PATH | ID:PATH DST"));
  SandboxPath from, to;
  bool in = !SplitSandboxPath(args[0], from) && SplitSandboxPath(args[1], to);
  bool out = SplitSandboxPath(args[0], from) && !SplitSandboxPath(args[1], to);
  if (!in && !out) {
    return FailWith(InvalidArgument("cp: exactly one of SRC and DST must be ID:PATH"));
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  auto sandbox = manager->Find(in ? to.ref : from.ref);
  if (!sandbox.ok()) return FailWith(sandbox.status());
  const SandboxRecord& record = sandbox->record;
  MarkActive(record);  // a copy is a use (the idle timeout)
  Status st;
  if (in) {
    std::string dst = to.path;
    auto info = AgentStat(record.agent_socket, dst);
    if (info.ok() && info->type == "dir") dst = Join(dst, BaseName(args[0]));
    st = CopyIn(*manager, record, args[0], dst,
                std::min(kMaxCopyBytes, record.spec.limits.disk_bytes));
  } else {
    std::string dst = IsHostDir(args[1]) ? Join(args[1], BaseName(from.path)) : args[1];
    st = CopyOut(record.agent_socket, from.path, dst);
  }
  return st.ok() ? 0 : FailWith(st);
}

}  // namespace agentbox
