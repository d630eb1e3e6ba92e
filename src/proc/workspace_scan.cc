#include "proc/workspace_scan.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/project_quota.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

constexpr int kOpenFds = 32;

// nftw passes no context: the walk in progress, one per thread.
struct Walk {
  std::optional<uint32_t> project;
  ScanResult result;
  Status error;
};
thread_local Walk* current = nullptr;

int Visit(const char* path, const struct stat* st, int type, struct FTW*) {
  Walk& w = *current;
  ++w.result.entries;
  if (type == FTW_NS || type == FTW_DNR) {
    w.error = Internal(std::string("cannot read ") + path + " in the workspace");
    return 1;
  }
  if ((S_ISSOCK(st->st_mode) || S_ISFIFO(st->st_mode)) && w.result.host_endpoint.empty()) {
    w.result.host_endpoint = path;
  }
  const bool dir = S_ISDIR(st->st_mode);
  if (!w.project || !(dir || S_ISREG(st->st_mode))) return 0;
  UniqueFd fd(::open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd.valid()) {
    w.error = ErrnoStatus(std::string("open ") + path + " to label it for the disk quota");
    return 1;
  }
  if (Status st2 = SetProjectLabel(fd.get(), *w.project, dir); !st2.ok()) {
    w.error = st2.WithContext(path);
    return 1;
  }
  return 0;
}

}  // namespace

StatusOr<ScanResult> ScanWorkspace(const std::string& dir, std::optional<uint32_t> label_project) {
  Walk walk;
  walk.project = label_project;
  current = &walk;
  int rc = ::nftw(dir.c_str(), Visit, kOpenFds, FTW_PHYS | FTW_MOUNT);
  current = nullptr;
  if (!walk.error.ok()) return walk.error;
  if (rc != 0) return ErrnoStatus("walk the workspace " + dir);
  return walk.result;
}

}  // namespace agentbox
