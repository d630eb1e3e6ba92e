#include "proc/workspace_digest.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

#include "base/sha256.h"
#include "proc/workspace_tree.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

constexpr std::string_view kCacheMagic = "agentbox-digest-cache-1\n";

void PutU64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }

bool GetU64(std::string_view& in, uint64_t* v) {
  if (in.size() < 8) return false;
  std::memcpy(v, in.data(), 8);
  in.remove_prefix(8);
  return true;
}

bool GetString(std::string_view& in, std::string* s) {
  uint64_t n = 0;
  if (!GetU64(in, &n) || n > in.size()) return false;
  s->assign(in.substr(0, n));
  in.remove_prefix(n);
  return true;
}

StatusOr<std::string> HashFile(int dirfd, const std::string& name) {
  AB_ASSIGN_OR_RETURN(UniqueFd fd, OpenTreeFile(dirfd, name));
  Sha256 hash;
  static thread_local char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n == 0) return hash.Digest();
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("read " + name);
    }
    hash.Update(buf, static_cast<size_t>(n));
  }
}

class Digester {
 public:
  Digester(DigestCache* cache, int64_t now_ns) : old_(cache), now_ns_(now_ns) {}

  Status Dir(int dirfd, const std::string& rel, dev_t dev) {
    AB_ASSIGN_OR_RETURN(std::vector<TreeEntry> entries, ReadTreeDir(dirfd));
    for (const TreeEntry& e : entries) {
      const std::string path = rel + e.name;
      AB_ASSIGN_OR_RETURN(std::string content, Content(dirfd, e, path));
      const uint64_t size = S_ISREG(e.st.st_mode) ? static_cast<uint64_t>(e.st.st_size) : 0;
      hash_.Update(DigestRecord(path, e.st.st_mode, size, content));
      if (S_ISDIR(e.st.st_mode)) {
        AB_ASSIGN_OR_RETURN(UniqueFd sub, OpenTreeDir(dirfd, e.name, dev));
        AB_RETURN_IF_ERROR(Dir(sub.get(), path + "/", dev));
      }
    }
    return OkStatus();
  }

  std::string Finish() { return hash_.Digest(); }
  DigestCache fresh;

 private:
  StatusOr<std::string> Content(int dirfd, const TreeEntry& e, const std::string& path) {
    if (S_ISLNK(e.st.st_mode)) {
      std::string target(PATH_MAX, '\0');
      ssize_t n = ::readlinkat(dirfd, e.name.c_str(), target.data(), target.size());
      if (n < 0) return ErrnoStatus("readlink " + path);
      target.resize(static_cast<size_t>(n));
      return Sha256Of(target);
    }
    if (!S_ISREG(e.st.st_mode)) return std::string("-");
    DigestCacheEntry now{e.st.st_ino, static_cast<uint64_t>(e.st.st_size), TimeNs(e.st.st_mtim),
                         TimeNs(e.st.st_ctim), ""};
    if (old_ != nullptr) {
      auto hit = old_->find(path);
      if (hit != old_->end() && hit->second.ino == now.ino && hit->second.size == now.size &&
          hit->second.mtime_ns == now.mtime_ns && hit->second.ctime_ns == now.ctime_ns) {
        now.hash = hit->second.hash;
      }
    }
    if (now.hash.empty()) {
      AB_ASSIGN_OR_RETURN(now.hash, HashFile(dirfd, e.name));
    }
    if (now.ctime_ns >= now_ns_ - kRacyMarginNs) now.ctime_ns = -1;
    std::string hash = now.hash;
    if (old_ != nullptr) fresh.emplace(path, std::move(now));
    return hash;
  }

  DigestCache* old_;
  int64_t now_ns_;
  Sha256 hash_;
};

int64_t RealtimeNs() {
  struct timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return TimeNs(ts);
}

Status SaveCache(const std::string& path, const DigestCache& cache) {
  std::string tmp = path + ".XXXXXX";
  UniqueFd fd(::mkostemp(tmp.data(), O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus("create " + tmp);
  const std::string bytes = EncodeDigestCache(cache);
  for (size_t off = 0; off < bytes.size();) {
    ssize_t n = ::write(fd.get(), bytes.data() + off, bytes.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::unlink(tmp.c_str());
      return ErrnoStatus("write " + tmp);
    }
    off += static_cast<size_t>(n);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return ErrnoStatus("rename " + tmp);
  }
  return OkStatus();
}

bool SameCache(const DigestCache& a, const DigestCache& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [path, e] : a) {
    auto it = b.find(path);
    if (it == b.end()) return false;
    const DigestCacheEntry& o = it->second;
    if (e.ino != o.ino || e.size != o.size || e.mtime_ns != o.mtime_ns ||
        e.ctime_ns != o.ctime_ns || e.hash != o.hash) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string EncodeDigestCache(const DigestCache& cache) {
  std::string out(kCacheMagic);
  for (const auto& [path, e] : cache) {
    PutU64(out, path.size());
    out += path;
    PutU64(out, e.ino);
    PutU64(out, e.size);
    PutU64(out, static_cast<uint64_t>(e.mtime_ns));
    PutU64(out, static_cast<uint64_t>(e.ctime_ns));
    PutU64(out, e.hash.size());
    out += e.hash;
  }
  return out;
}

DigestCache DecodeDigestCache(std::string_view in) {
  DigestCache cache;
  if (in.substr(0, kCacheMagic.size()) != kCacheMagic) return cache;
  in.remove_prefix(kCacheMagic.size());
  while (!in.empty()) {
    std::string path;
    DigestCacheEntry e;
    uint64_t mtime = 0, ctime = 0;
    if (!GetString(in, &path) || !GetU64(in, &e.ino) || !GetU64(in, &e.size) ||
        !GetU64(in, &mtime) || !GetU64(in, &ctime) || !GetString(in, &e.hash)) {
      return {};
    }
    e.mtime_ns = static_cast<int64_t>(mtime);
    e.ctime_ns = static_cast<int64_t>(ctime);
    cache.emplace(std::move(path), std::move(e));
  }
  return cache;
}

std::string DigestRecord(const std::string& path, mode_t mode, uint64_t size,
                         const std::string& content) {
  const char type = S_ISREG(mode) ? 'f' : S_ISDIR(mode) ? 'd' : S_ISLNK(mode) ? 'l' : 'o';
  char head[64];
  std::snprintf(head, sizeof(head), "%c %o %llu ", type, static_cast<unsigned>(mode & 07777),
                static_cast<unsigned long long>(size));
  std::string out = head + content + " " + path;
  out.push_back('\0');
  return out;
}

StatusOr<std::string> DigestTree(int root_fd, DigestCache* cache, int64_t now_ns) {
  struct stat st;
  if (::fstat(root_fd, &st) != 0) return ErrnoStatus("stat the workspace");
  Digester digester(cache, now_ns);
  AB_RETURN_IF_ERROR(digester.Dir(root_fd, "", st.st_dev));
  if (cache != nullptr) *cache = std::move(digester.fresh);
  return digester.Finish();
}

StatusOr<std::string> DigestWorkspace(const std::string& root, const std::string& read_cache,
                                      const std::string& write_cache) {
  UniqueFd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return ErrnoStatus("open the workspace " + root);
  auto bytes = read_cache.empty() ? StatusOr<std::string>(NotFound("")) : ReadFile(read_cache);
  const DigestCache old = bytes.ok() ? DecodeDigestCache(*bytes) : DigestCache();
  DigestCache cache = old;
  AB_ASSIGN_OR_RETURN(std::string digest, DigestTree(fd.get(), &cache, RealtimeNs()));
  // Only saves work next time. Rewritten only when it changed: renaming over the old cache
  // starts its writeback on ext4 (auto_da_alloc), 10+ ms a time on a busy disk, which an exec
  // that changed nothing would otherwise pay twice.
  // (An empty `old` may be a cache that did not decode: that one is replaced.)
  const bool unchanged = bytes.ok() && read_cache == write_cache && SameCache(cache, old) &&
                         (!old.empty() || *bytes == EncodeDigestCache(old));
  if (!write_cache.empty() && !unchanged) (void)SaveCache(write_cache, cache);
  return digest;
}

}  // namespace agentbox
