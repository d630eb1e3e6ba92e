// `agentbox cp SRC ID:PATH` and `agentbox cp ID:PATH DST`: files and directories, both ways,
// through the sandbox's agent, which resolves every path strictly beneath /workspace; `-` for
// SRC or DST is a tar stream on stdin or stdout (core/sandbox_archive.h).
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "app/backends.h"
#include "app/cli.h"
#include "core/agent_files.h"
#include "core/sandbox_activity.h"
#include "core/sandbox_archive.h"
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

Status CopyOut(const AgentEndpoint& socket, const std::string& src, const std::string& dst) {
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

// Host-side bounds of a tar stream (core/sandbox_archive.h): a file as `cp` takes one, at most
// 4 GiB in all, and into the sandbox never more than its disk limit lets it gain.
ArchiveLimits CpArchiveLimits(const SandboxRecord& record, bool into_sandbox) {
  ArchiveLimits limits;
  limits.max_file_bytes = kMaxCopyBytes;
  limits.max_total_bytes = 4 * kGiB;
  if (into_sandbox)
    limits.max_total_bytes = std::min(limits.max_total_bytes, record.spec.limits.disk_bytes);
  return limits;
}

Status WriteAllTo(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("cp: write to stdout");
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return OkStatus();
}

Status ReadSomeFrom(int fd, std::string* chunk) {
  chunk->resize(64 * 1024);
  while (true) {
    const ssize_t n = ::read(fd, chunk->data(), chunk->size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("cp: read stdin");
    chunk->resize(static_cast<size_t>(n));
    return OkStatus();
  }
}

// `cp ID:PATH -` and `cp - ID:DIR`: a tar stream on stdout or from stdin, as docker's.
Status CopyTarStream(const SandboxRecord& record, const std::string& path, bool into_sandbox) {
  const ArchiveLimits limits = CpArchiveLimits(record, into_sandbox);
  if (into_sandbox) {
    auto counts = ExtractSandboxArchive(record.agent(), path, limits,
                                        [](std::string* chunk) { return ReadSomeFrom(0, chunk); });
    return counts.status();
  }
  ::signal(SIGPIPE, SIG_IGN);  // a reader that stops early is an error, not a kill
  auto counts = WriteSandboxArchive(record.agent(), path, limits,
                                    [](std::string_view bytes) { return WriteAllTo(1, bytes); });
  return counts.status();
}

}  // namespace

const CommandHelp& CpHelp() {
  static constexpr FlagDef kFlags[] = {
      {"help", 'h', "", "show this help"},
  };
  static const CommandHelp help = {
      .name = "cp",
      .summary = "copy files between the host and a sandbox's /workspace",
      .usage = "cp SRC ID:PATH\ncp ID:PATH DST\ncp ID:PATH -\ncp - ID:DIR",
      .description =
          "Copies a file or a directory tree between the host and a sandbox's /workspace, through "
          "the sandbox's agent. PATH is relative to /workspace or starts with /workspace (ID: "
          "alone is /workspace); nothing outside it is reachable, and a symlink or any other "
          "file type in the tree stops the copy. An existing directory receives SRC's base name. "
          "Each file is limited to 256 MiB; into the sandbox also to its disk limit.\n"
          "\n"
          "As docker's: `cp ID:PATH -` writes PATH as a tar stream (POSIX pax, uncompressed, its "
          "base name at the top) to stdout, and `cp - ID:DIR` extracts a tar stream (ustar, pax "
          "or GNU; uncompressed) from stdin into the existing directory DIR. An entry that is "
          "absolute or holds .. is refused, as are links, devices and FIFOs; a stream holds at "
          "most 100000 entries and 4 GiB.\n"
          "\n"
          "  tar -C src -cf - . | agentbox cp - work:/workspace\n"
          "  agentbox cp work:/workspace/out - | tar -xf -",
      .flags = kFlags,
      .operands = "path path",
  };
  return help;
}

int CpSubcommand(const Args& args) {
  int exit = 0;
  auto parsed = ParseOrHelp(CpHelp(), args, &exit);
  if (!parsed) return exit;
  const Args& operands = parsed->rest;
  if (operands.size() != 2) {
    return FailWith(
        InvalidArgument("usage: agentbox cp SRC ID:PATH | ID:PATH DST (- for a tar stream)"));
  }
  SandboxPath from, to;
  bool in = !SplitSandboxPath(operands[0], from) && SplitSandboxPath(operands[1], to);
  bool out = SplitSandboxPath(operands[0], from) && !SplitSandboxPath(operands[1], to);
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
  if (in && operands[0] == "-") {
    st = CopyTarStream(record, to.path, /*into_sandbox=*/true);
  } else if (out && operands[1] == "-") {
    st = CopyTarStream(record, from.path, /*into_sandbox=*/false);
  } else if (in) {
    std::string dst = to.path;
    auto info = AgentStat(record.agent(), dst);
    if (info.ok() && info->type == "dir") dst = Join(dst, BaseName(operands[0]));
    st = CopyIn(*manager, record, operands[0], dst,
                std::min(kMaxCopyBytes, record.spec.limits.disk_bytes));
  } else {
    std::string dst = IsHostDir(operands[1]) ? Join(operands[1], BaseName(from.path)) : operands[1];
    st = CopyOut(record.agent(), from.path, dst);
  }
  return st.ok() ? 0 : FailWith(st);
}

}  // namespace agentbox
