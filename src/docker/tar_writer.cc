#include "docker/tar_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <utility>

#include "sys/file_util.h"
#include "sys/unique_fd.h"

namespace agentbox::docker {
namespace {

constexpr size_t kBlock = 512;

struct Header {
  char bytes[kBlock] = {};
};

// width-1 octal digits, zero-padded, then NUL; values that do not fit (files of 8 GiB and
// more) are out of scope for a rootfs and are clamped.
void PutOctal(char* field, size_t width, uint64_t value) {
  uint64_t max = (uint64_t{1} << (3 * (width - 1))) - 1;
  value = std::min(value, max);
  for (size_t i = width - 1; i-- > 0;) {
    field[i] = static_cast<char>('0' + (value & 7));
    value >>= 3;
  }
  field[width - 1] = '\0';
}

void PutString(char* field, size_t width, const std::string& value) {
  std::memcpy(field, value.data(), std::min(width, value.size()));
}

void Checksum(Header& h) {
  std::memset(h.bytes + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h.bytes) sum += c;
  std::snprintf(h.bytes + 148, 8, "%06o", sum);
  h.bytes[155] = ' ';
}

void Pad(std::string& out) { out.append((kBlock - out.size() % kBlock) % kBlock, '\0'); }

// One pax record: "<len> key=value\n" where <len> counts the whole record, itself included.
std::string PaxRecord(const std::string& key, const std::string& value) {
  size_t body = key.size() + value.size() + 3;  // ' ', '=', '\n'
  size_t len = body + std::to_string(body).size();
  if (std::to_string(len).size() != std::to_string(body).size()) ++len;
  return std::to_string(len) + " " + key + "=" + value + "\n";
}

class Archiver {
 public:
  explicit Archiver(std::string& out) : out_(out) {}

  Status AddTree(int dir_fd, const std::string& prefix, dev_t dev) {
    AB_ASSIGN_OR_RETURN(std::vector<std::string> names,
                        ListDir("/proc/self/fd/" + std::to_string(dir_fd)));
    std::sort(names.begin(), names.end());  // deterministic archives
    for (const std::string& name : names) {
      std::string path = prefix + name;
      struct stat st;
      if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        return ErrnoStatus("stat " + path);
      }
      if (S_ISDIR(st.st_mode)) {
        AddHeader(path + "/", st, '5', 0, "");
        if (st.st_dev != dev) continue;  // a mount point: its contents are not ours
        UniqueFd sub(
            ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!sub.valid()) return ErrnoStatus("open " + path);
        AB_RETURN_IF_ERROR(AddTree(sub.get(), path + "/", dev));
      } else if (S_ISLNK(st.st_mode)) {
        std::string target(static_cast<size_t>(st.st_size) + 1, '\0');
        ssize_t n = ::readlinkat(dir_fd, name.c_str(), target.data(), target.size());
        if (n < 0) return ErrnoStatus("readlink " + path);
        target.resize(static_cast<size_t>(n));
        AddHeader(path, st, '2', 0, target);
      } else if (S_ISREG(st.st_mode)) {
        auto key = std::make_pair(st.st_dev, st.st_ino);
        if (st.st_nlink > 1) {
          if (auto it = links_.find(key); it != links_.end()) {
            AddHeader(path, st, '1', 0, it->second);
            continue;
          }
          links_[key] = path;
        }
        AB_RETURN_IF_ERROR(AddFile(dir_fd, name, path, st));
      }
      // sockets, fifos, devices: skipped (see the header).
    }
    return OkStatus();
  }

 private:
  void AddHeader(const std::string& path, const struct stat& st, char type, uint64_t size,
                 const std::string& link) {
    std::string pax;
    if (path.size() > 100) pax += PaxRecord("path", path);
    if (link.size() > 100) pax += PaxRecord("linkpath", link);
    if (!pax.empty()) {
      AppendHeader("PaxHeader", 0644, 0, 0, pax.size(), 0, 'x', "");
      out_.append(pax);
      Pad(out_);
    }
    AppendHeader(path.substr(0, 100), st.st_mode & 07777, st.st_uid, st.st_gid, size,
                 static_cast<uint64_t>(std::max<time_t>(st.st_mtime, 0)), type,
                 link.substr(0, 100));
  }

  // One ustar header block; names longer than 100 bytes went into a pax header before it.
  void AppendHeader(const std::string& name, uint64_t mode, uint64_t uid, uint64_t gid,
                    uint64_t size, uint64_t mtime, char type, const std::string& link) {
    Header h;
    PutString(h.bytes, 100, name);
    PutOctal(h.bytes + 100, 8, mode);
    PutOctal(h.bytes + 108, 8, uid);
    PutOctal(h.bytes + 116, 8, gid);
    PutOctal(h.bytes + 124, 12, size);
    PutOctal(h.bytes + 136, 12, mtime);
    h.bytes[156] = type;
    PutString(h.bytes + 157, 100, link);
    std::memcpy(h.bytes + 257,
                "ustar\0"
                "00",
                8);
    Checksum(h);
    out_.append(h.bytes, kBlock);
  }

  Status AddFile(int dir_fd, const std::string& name, const std::string& path,
                 const struct stat& st) {
    UniqueFd fd(::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) return ErrnoStatus("open " + path);
    AddHeader(path, st, '0', static_cast<uint64_t>(st.st_size), "");
    size_t start = out_.size();
    out_.resize(start + static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < static_cast<size_t>(st.st_size)) {
      ssize_t n =
          ::read(fd.get(), out_.data() + start + done, static_cast<size_t>(st.st_size) - done);
      if (n < 0) return ErrnoStatus("read " + path);
      if (n == 0) return Internal("file " + path + " shrank while being archived");
      done += static_cast<size_t>(n);
    }
    Pad(out_);
    return OkStatus();
  }

  std::string& out_;
  std::map<std::pair<dev_t, ino_t>, std::string> links_;
};

}  // namespace

StatusOr<std::string> TarFromDirectory(const std::string& dir) {
  UniqueFd root(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return ErrnoStatus("rootfs " + dir);
  struct stat st;
  if (::fstat(root.get(), &st) != 0) return ErrnoStatus("stat " + dir);
  std::string out;
  Archiver archiver(out);
  AB_RETURN_IF_ERROR(archiver.AddTree(root.get(), "", st.st_dev));
  out.append(2 * kBlock, '\0');  // end of archive
  return out;
}

}  // namespace agentbox::docker
