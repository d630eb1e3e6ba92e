#include "sys/file_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace agentbox {

StatusOr<std::string> SelfExePath() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ErrnoStatus("readlink /proc/self/exe");
  return std::string(buf, static_cast<size_t>(n));
}

StatusOr<Pipe> MakePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoStatus("pipe");
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

StatusOr<UniqueFd> OpenFile(const std::string& path, int flags, mode_t mode) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  if (fd < 0) return ErrnoStatus("open " + path);
  return UniqueFd(fd);
}

StatusOr<std::string> ReadFileAtMost(const std::string& path, size_t max_bytes) {
  AB_ASSIGN_OR_RETURN(UniqueFd fd, OpenFile(path, O_RDONLY));
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("read " + path);
    if (n == 0) break;
    if (static_cast<size_t>(n) > max_bytes - out.size()) {
      return InvalidArgument(path + ": larger than " + std::to_string(max_bytes) + " bytes");
    }
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

StatusOr<std::string> ReadFile(const std::string& path) {
  return ReadFileAtMost(path, std::string::npos);
}

Status WriteExistingFile(const std::string& path, std::string_view data) {
  AB_ASSIGN_OR_RETURN(UniqueFd fd, OpenFile(path, O_WRONLY | O_TRUNC));
  ssize_t n;
  do {
    n = ::write(fd.get(), data.data(), data.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0) return ErrnoStatus("write '" + std::string(data) + "' to " + path);
  if (static_cast<size_t>(n) != data.size()) {
    return Internal("short write to " + path + ": " + std::to_string(n) + " of " +
                    std::to_string(data.size()) + " bytes");
  }
  return OkStatus();
}

Status WriteFile(const std::string& path, std::string_view data, mode_t mode) {
  AB_ASSIGN_OR_RETURN(UniqueFd fd, OpenFile(path, O_WRONLY | O_CREAT | O_TRUNC, mode));
  while (!data.empty()) {
    ssize_t n = ::write(fd.get(), data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("write " + path);
    data.remove_prefix(static_cast<size_t>(n));
  }
  return OkStatus();
}

bool PathExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

StatusOr<std::string> ReadLink(const std::string& path) {
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof(buf));
  if (n < 0) return ErrnoStatus("readlink " + path);
  if (static_cast<size_t>(n) == sizeof(buf))
    return InvalidArgument("readlink " + path + ": too long");
  return std::string(buf, static_cast<size_t>(n));
}

Status MakeDir(const std::string& path, mode_t mode) {
  if (::mkdir(path.c_str(), mode) == 0) return OkStatus();
  int err = errno;
  struct stat st;
  if (err == EEXIST && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return OkStatus();
  return ErrnoStatus("mkdir " + path, err);
}

Status MakeDirs(const std::string& path, mode_t mode) {
  if (path.empty() || PathExists(path)) return MakeDir(path.empty() ? "/" : path, mode);
  size_t slash = path.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    AB_RETURN_IF_ERROR(MakeDirs(path.substr(0, slash), mode));
  }
  return MakeDir(path, mode);
}

StatusOr<std::vector<std::string>> ListDir(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return ErrnoStatus("opendir " + path);
  std::vector<std::string> names;
  errno = 0;
  while (struct dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  int err = errno;
  ::closedir(dir);
  if (err != 0) return ErrnoStatus("readdir " + path, err);
  return names;
}

bool RemoveTree(const std::string& path) {
  auto remove_one = [](const char* p, const struct stat*, int, struct FTW*) {
    ::remove(p);
    return 0;
  };
  ::nftw(path.c_str(), remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
  return ::access(path.c_str(), F_OK) != 0;
}

}  // namespace agentbox
