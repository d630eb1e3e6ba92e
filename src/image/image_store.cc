#include "image/image_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <random>
#include <set>

#include "base/json_limits.h"
#include "image/digest.h"
#include "image/image_ref.h"
#include "spec/sandbox_spec.h"
#include "sys/file_util.h"

namespace agentbox::image {
namespace {

using Json = nlohmann::json;
using Names = std::vector<std::pair<std::string, std::string>>;

bool IsHex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

// Writes a file by rename, synced first: a reader sees the old or the new content, whole.
Status WriteAtomically(const std::string& path, const std::string& data) {
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    AB_ASSIGN_OR_RETURN(UniqueFd fd, OpenFile(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600));
    if (::write(fd.get(), data.data(), data.size()) != static_cast<ssize_t>(data.size()) ||
        ::fsync(fd.get()) != 0) {
      Status st = ErrnoStatus("write " + tmp);
      ::unlink(tmp.c_str());
      return st;
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return ErrnoStatus("rename " + tmp);
  return OkStatus();
}

std::string NowUtc() {
  char buf[32];
  time_t now = ::time(nullptr);
  struct tm tm;
  ::gmtime_r(&now, &tm);
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string RandomSuffix() {
  std::random_device rd;
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%08x%08x", rd(), rd());
  return buf;
}

}  // namespace

std::string ImageRecordToJson(const ImageRecord& r) {
  const ImageConfig& c = r.config;
  Json j = {{"id", r.id},           {"manifest_digest", r.manifest_digest},
            {"layers", c.diff_ids}, {"size", r.size},
            {"source", r.source},   {"added_at", r.added_at},
            {"created", c.created}, {"platform", PlatformString(c.platform)},
            {"env", c.env},         {"working_dir", c.working_dir},
            {"user", c.user},       {"entrypoint", c.entrypoint},
            {"cmd", c.cmd}};
  return j.dump();
}

StatusOr<ImageRecord> ImageRecordFromJson(std::string_view text) {
  auto j = ParseJsonWithLimits(text);
  if (!j.ok() || !j->is_object()) return Internal("image record is not a JSON object");
  ImageRecord r;
  try {
    r.id = j->at("id").get<std::string>();
    r.manifest_digest = j->value("manifest_digest", "");
    r.config.diff_ids = j->at("layers").get<std::vector<std::string>>();
    r.size = j->value("size", uint64_t{0});
    r.source = j->value("source", "");
    r.added_at = j->value("added_at", "");
    r.config.created = j->value("created", "");
    auto platform = ParsePlatform(j->value("platform", "linux/amd64"));
    if (platform.ok()) r.config.platform = *platform;
    r.config.env = j->value("env", std::vector<std::string>{});
    r.config.working_dir = j->value("working_dir", "");
    r.config.user = j->value("user", "");
    r.config.entrypoint = j->value("entrypoint", std::vector<std::string>{});
    r.config.cmd = j->value("cmd", std::vector<std::string>{});
  } catch (const Json::exception& e) {
    return Internal(std::string("image record: ") + e.what());
  }
  AB_RETURN_IF_ERROR(CheckDigest(r.id));
  for (const std::string& d : r.config.diff_ids) AB_RETURN_IF_ERROR(CheckDigest(d));
  return r;
}

StatusOr<ImageStore> ImageStore::Open(const std::string& state_root) {
  if (::geteuid() != 0) {
    return Unavailable(
        "images need agentbox to run as root (layers keep their owners and "
        "overlay whiteouts, which only the host's root can make)");
  }
  ImageStore store(state_root + "/images");
  AB_RETURN_IF_ERROR(MakeDirs(store.dir_, 0700));
  for (const char* sub : {"layers", "images", "lower", "tmp"}) {
    AB_RETURN_IF_ERROR(MakeDir(store.dir_ + "/" + sub, 0700));
  }
  return store;
}

StatusOr<Names> ImageStore::ReadNames() const {
  Names out;
  std::string path = dir_ + "/names.json";
  if (!PathExists(path)) return out;
  AB_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  auto j = ParseJsonWithLimits(text);
  if (!j.ok() || !j->is_object()) return Internal(path + " is not a JSON object");
  for (auto it = j->begin(); it != j->end(); ++it) {
    if (it.value().is_string()) out.emplace_back(it.key(), it.value().get<std::string>());
  }
  return out;
}

Status ImageStore::WriteNames(const Names& names) const {
  Json j = Json::object();
  for (const auto& [name, id] : names) j[name] = id;
  return WriteAtomically(dir_ + "/names.json", j.dump(1));
}

StatusOr<ImageRecord> ImageStore::ReadRecord(const std::string& hex) const {
  AB_ASSIGN_OR_RETURN(std::string text, ReadFile(dir_ + "/images/" + hex + ".json"));
  AB_ASSIGN_OR_RETURN(ImageRecord r, ImageRecordFromJson(text));
  AB_ASSIGN_OR_RETURN(Names names, ReadNames());
  for (const auto& [name, id] : names) {
    if (id == r.id) r.names.push_back(name);
  }
  return r;
}

StatusOr<ImageRecord> ImageStore::Resolve(std::string_view ref) const {
  std::string text(ref);
  std::string hex = text.rfind("sha256:", 0) == 0 ? text.substr(7) : text;
  if (IsHex(hex) && hex.size() >= 4 && hex.size() <= 64) {
    AB_ASSIGN_OR_RETURN(std::vector<std::string> files, ListDir(dir_ + "/images"));
    std::vector<std::string> hits;
    for (const std::string& f : files) {
      if (f.size() == 69 && f.ends_with(".json") && f.rfind(hex, 0) == 0) hits.push_back(f);
    }
    if (hits.size() == 1) return ReadRecord(hits[0].substr(0, 64));
    if (hits.size() > 1) return InvalidArgument("image id prefix \"" + text + "\" is ambiguous");
  }
  auto parsed = ParseImageRef(ref);
  if (parsed.ok()) {
    AB_ASSIGN_OR_RETURN(Names names, ReadNames());
    std::string canonical = parsed->Canonical();
    for (const auto& [name, id] : names) {
      if (name == canonical) return ReadRecord(DigestHex(id));
    }
  }
  return NotFound("no image \"" + text +
                  "\" in the image store (agentbox image pull or agentbox image load it first)");
}

StatusOr<std::vector<ImageRecord>> ImageStore::List() const {
  AB_ASSIGN_OR_RETURN(std::vector<std::string> files, ListDir(dir_ + "/images"));
  std::sort(files.begin(), files.end());
  std::vector<ImageRecord> out;
  for (const std::string& f : files) {
    if (f.size() != 69 || !f.ends_with(".json")) continue;
    auto r = ReadRecord(f.substr(0, 64));
    if (r.ok()) out.push_back(std::move(*r));
  }
  return out;
}

bool ImageStore::HasLayer(std::string_view diff_id) const {
  return PathExists(dir_ + "/layers/" + DigestHex(diff_id) + "/root");
}

std::string ImageStore::LayerRoot(std::string_view diff_id) const {
  return dir_ + "/layers/" + DigestHex(diff_id) + "/root";
}

StatusOr<std::string> ImageStore::MakeTempDir(std::string_view kind) const {
  std::string path =
      dir_ + "/tmp/" + std::string(kind) + "-" + std::to_string(::getpid()) + "-" + RandomSuffix();
  if (::mkdir(path.c_str(), 0700) != 0) return ErrnoStatus("mkdir " + path);
  return path;
}

Status ImageStore::CommitLayer(const std::string& tmp_dir, const UnpackedLayer& layer) const {
  Json meta = {{"diff_id", layer.diff_id},
               {"bytes", layer.bytes},
               {"entries", layer.entries},
               {"setid_dropped", layer.setid_dropped},
               {"unpacked_at", NowUtc()}};
  AB_RETURN_IF_ERROR(WriteAtomically(tmp_dir + "/layer.json", meta.dump()));
  std::string dest = dir_ + "/layers/" + DigestHex(layer.diff_id);
  if (::rename(tmp_dir.c_str(), dest.c_str()) != 0) {
    if (errno != EEXIST && errno != ENOTEMPTY) return ErrnoStatus("rename into " + dest);
    RemoveTree(tmp_dir);  // another pull committed the same layer first
  }
  UniqueFd parent(::open((dir_ + "/layers").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (parent.valid()) ::fsync(parent.get());
  return OkStatus();
}

Status ImageStore::AddImage(const ImageRecord& record,
                            const std::vector<std::string>& names) const {
  AB_ASSIGN_OR_RETURN(StoreLock names_lock, LockNames());
  ImageRecord r = record;
  if (r.added_at.empty()) r.added_at = NowUtc();
  AB_RETURN_IF_ERROR(
      WriteAtomically(dir_ + "/images/" + DigestHex(r.id) + ".json", ImageRecordToJson(r)));
  AB_ASSIGN_OR_RETURN(Names current, ReadNames());
  for (const std::string& name : names) {
    auto it = std::find_if(current.begin(), current.end(),
                           [&](const auto& entry) { return entry.first == name; });
    if (it != current.end())
      it->second = r.id;
    else
      current.emplace_back(name, r.id);
  }
  return WriteNames(current);
}

Status ImageStore::Untag(const ImageRecord& record, const std::string& name) const {
  AB_ASSIGN_OR_RETURN(StoreLock names_lock, LockNames());
  AB_ASSIGN_OR_RETURN(Names current, ReadNames());
  std::erase_if(current, [&](const auto& e) { return e.first == name && e.second == record.id; });
  return WriteNames(current);
}

Status ImageStore::RemoveImage(const ImageRecord& record) const {
  AB_ASSIGN_OR_RETURN(StoreLock names_lock, LockNames());
  AB_ASSIGN_OR_RETURN(Names current, ReadNames());
  std::erase_if(current, [&](const auto& e) { return e.second == record.id; });
  AB_RETURN_IF_ERROR(WriteNames(current));
  std::string base = dir_ + "/images/" + DigestHex(record.id);
  if (::unlink((base + ".json").c_str()) != 0 && errno != ENOENT) {
    return ErrnoStatus("remove " + base + ".json");
  }
  ::unlink((base + ".lock").c_str());
  RemoveTree(dir_ + "/lower/" + DigestHex(record.id));
  return OkStatus();
}

StatusOr<std::vector<std::string>> ImageStore::CollectGarbage() const {
  AB_ASSIGN_OR_RETURN(std::vector<ImageRecord> images, List());
  std::set<std::string> used_layers, used_images;
  for (const ImageRecord& r : images) {
    used_images.insert(DigestHex(r.id));
    for (const std::string& d : r.config.diff_ids) used_layers.insert(DigestHex(d));
  }
  std::vector<std::string> removed;
  AB_ASSIGN_OR_RETURN(std::vector<std::string> layers, ListDir(dir_ + "/layers"));
  for (const std::string& hex : layers) {
    if (used_layers.count(hex) == 0 && RemoveTree(dir_ + "/layers/" + hex)) {
      removed.push_back("removed layer sha256:" + hex);
    }
  }
  AB_ASSIGN_OR_RETURN(std::vector<std::string> lowers, ListDir(dir_ + "/lower"));
  for (const std::string& hex : lowers) {
    if (used_images.count(hex) == 0) RemoveTree(dir_ + "/lower/" + hex);
  }
  // Under the exclusive lock no pull or load is running: whatever is in tmp/ was left behind.
  AB_ASSIGN_OR_RETURN(std::vector<std::string> tmps, ListDir(dir_ + "/tmp"));
  for (const std::string& t : tmps) {
    if (RemoveTree(dir_ + "/tmp/" + t)) removed.push_back("removed unfinished image data " + t);
  }
  return removed;
}

StatusOr<StoreLock> ImageStore::Lock(const std::string& path, int how) const {
  AB_ASSIGN_OR_RETURN(UniqueFd fd, OpenFile(path, O_RDONLY | O_CREAT, 0600));
  if (::flock(fd.get(), how) != 0) {
    if (errno == EWOULDBLOCK) return StoreLock();
    return ErrnoStatus("flock " + path);
  }
  return StoreLock(std::move(fd));
}

StatusOr<StoreLock> ImageStore::LockShared() const { return Lock(dir_ + "/store.lock", LOCK_SH); }

StatusOr<StoreLock> ImageStore::TryLockExclusive() const {
  return Lock(dir_ + "/store.lock", LOCK_EX | LOCK_NB);
}

StatusOr<StoreLock> ImageStore::LockImageShared(std::string_view id) const {
  return Lock(dir_ + "/images/" + DigestHex(id) + ".lock", LOCK_SH);
}

StatusOr<StoreLock> ImageStore::TryLockImageExclusive(std::string_view id) const {
  return Lock(dir_ + "/images/" + DigestHex(id) + ".lock", LOCK_EX | LOCK_NB);
}

StatusOr<std::string> ImageStore::LowerDir(const ImageRecord& record) const {
  std::string scaffold = dir_ + "/scaffold";
  // resolv.conf last: a store whose scaffold predates it gets it the next time.
  if (!PathExists(scaffold + "/etc/resolv.conf")) {
    AB_RETURN_IF_ERROR(MakeDir(scaffold, 0755));
    // Owned by root inside the sandbox, as an image's own directories are.
    const uint32_t root = HostIdForImageId(0);
    for (const char* d : {"", "/proc", "/dev", "/sys", "/tmp", "/workspace", "/etc"}) {
      AB_RETURN_IF_ERROR(MakeDir(scaffold + d, 0755));
      if (::chown((scaffold + d).c_str(), root, root) != 0) return ErrnoStatus("chown " + scaffold);
    }
    // The sandbox's resolver over the image's own (a file over a file or a symlink; created
    // where the image has none): lookups go to the DNS catcher on the sandbox's loopback, as on
    // the host-root lane (spec/sandbox_spec.h kSandboxResolvConf).
    std::string tmp = scaffold + "/etc/.resolv.conf." + std::to_string(::getpid());
    AB_RETURN_IF_ERROR(WriteFile(tmp, kSandboxResolvConf, 0644));
    if (::chown(tmp.c_str(), root, root) != 0 ||
        ::rename(tmp.c_str(), (scaffold + "/etc/resolv.conf").c_str()) != 0) {
      Status st = ErrnoStatus("write " + scaffold + "/etc/resolv.conf");
      ::unlink(tmp.c_str());
      return st;
    }
  }
  std::string lower = dir_ + "/lower/" + DigestHex(record.id);
  if (PathExists(lower + "/s")) return lower;
  AB_ASSIGN_OR_RETURN(std::string tmp, MakeTempDir("lower"));
  const auto& layers = record.config.diff_ids;
  for (size_t i = 0; i < layers.size(); ++i) {
    std::string target = "../../layers/" + DigestHex(layers[layers.size() - 1 - i]) + "/root";
    if (::symlink(target.c_str(), (tmp + "/" + std::to_string(i)).c_str()) != 0) {
      return ErrnoStatus("symlink in " + tmp);
    }
  }
  if (::symlink("../../scaffold", (tmp + "/s").c_str()) != 0) return ErrnoStatus("symlink " + tmp);
  if (::rename(tmp.c_str(), lower.c_str()) != 0 && errno != EEXIST && errno != ENOTEMPTY) {
    return ErrnoStatus("rename into " + lower);
  }
  RemoveTree(tmp);
  return lower;
}

}  // namespace agentbox::image
