#include "policy/host_paths.h"

#include <string_view>
#include <vector>

namespace agentbox {
namespace {

// Trees refused with everything beneath them.
constexpr std::string_view kSystemTrees[] = {"/etc", "/usr", "/bin", "/sbin", "/boot", "/proc",
                                             "/sys", "/dev", "/run", "/var",  "/lib"};
// Refused themselves; a directory beneath them is fine.
constexpr std::string_view kSharedParents[] = {"/",    "/home",  "/root", "/tmp", "/var/tmp",
                                               "/mnt", "/media", "/srv",  "/opt", "/dev/shm"};

bool Within(std::string_view path, std::string_view tree) {
  if (tree == "/") return true;
  return path == tree || (path.size() > tree.size() && path.compare(0, tree.size(), tree) == 0 &&
                          path[tree.size()] == '/');
}

// /lib, /lib32, /lib64, /libx32, /libexec: every top-level /lib*.
bool InLibTree(std::string_view path) { return path.compare(0, 4, "/lib") == 0; }

}  // namespace

std::string NormalizeAbsolutePath(const std::string& path) {
  std::vector<std::string_view> parts;
  std::string_view rest(path);
  while (!rest.empty()) {
    size_t slash = rest.find('/');
    std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (std::string_view p : parts) {
    out += '/';
    out += p;
  }
  return out.empty() ? "/" : out;
}

Status CheckWorkspaceHostPath(const std::string& resolved, const std::string& state_root) {
  const std::string path = NormalizeAbsolutePath(resolved);
  auto refuse = [&](const std::string& why) {
    return InvalidArgument("--workspace " + path + ": " + why +
                           "; give a directory of your own (or leave out --workspace for a "
                           "private one)");
  };
  for (std::string_view parent : kSharedParents) {
    if (path == parent) return refuse("a system directory, not a workspace");
  }
  if (Within(path, "/var/tmp")) return OkStatus();
  for (std::string_view tree : kSystemTrees) {
    if (tree == "/lib" ? InLibTree(path) : Within(path, tree)) {
      return refuse("inside the system's " + std::string(tree == "/lib" ? "/lib*" : tree) +
                    ", which no command may write");
    }
  }
  return CheckStateDirApart("--workspace", path, state_root);
}

Status CheckStateDirApart(const std::string& flag, const std::string& resolved,
                          const std::string& state_root) {
  if (state_root.empty()) return OkStatus();
  const std::string path = NormalizeAbsolutePath(resolved);
  const std::string root = NormalizeAbsolutePath(state_root);
  const char* why = Within(path, root) ? "inside" : Within(root, path) ? "contains" : nullptr;
  if (why == nullptr) return OkStatus();
  return InvalidArgument(flag + " " + path + ": " + why + " agentbox's state directory " + root +
                         " (other sandboxes' agent sockets and records); give a directory of "
                         "your own");
}

}  // namespace agentbox
