#include "core/snapshot_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <random>

#include "core/state_store.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

std::string SnapshotDir(const SandboxRecord& sandbox) { return sandbox.state_dir + "/snapshots"; }

bool IsHexPrefix(const std::string& s) {
  return s.size() >= 4 && s.size() <= 12 &&
         s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// One match of ref among `all`: the exact id, else the name (when by_name), else the only id
// it prefixes. -1: none; -2: several.
int Match(const std::vector<SnapshotRecord>& all, const std::string& ref, bool by_name) {
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].id == ref || (by_name && !ref.empty() && all[i].name == ref)) {
      return static_cast<int>(i);
    }
  }
  if (!IsHexPrefix(ref)) return -1;
  int found = -1;
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].id.rfind(ref, 0) != 0) continue;
    if (found >= 0) return -2;
    found = static_cast<int>(i);
  }
  return found;
}

}  // namespace

std::string SnapshotRecordToJson(const SnapshotRecord& r) {
  nlohmann::ordered_json j = {{"id", r.id},
                              {"name", r.name},
                              {"sandbox", r.sandbox_id},
                              {"created_at", r.created_at},
                              {"taken_ns", r.taken_ns},
                              {"volume", r.volume},
                              {"workspace_digest", r.workspace_digest}};
  return j.dump();
}

nlohmann::json SnapshotViewJson(const SnapshotRecord& s) {
  return {{"id", s.id},
          {"name", s.name},
          {"sandbox", s.sandbox_id},
          {"created_at", s.created_at},
          {"workspace_digest",
           s.workspace_digest.empty() ? nlohmann::json() : nlohmann::json(s.workspace_digest)}};
}

StatusOr<SnapshotRecord> SnapshotRecordFromJson(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return Internal("malformed snapshot record");
  try {
    SnapshotRecord r;
    r.id = j.at("id").get<std::string>();
    r.name = j.at("name").get<std::string>();
    r.sandbox_id = j.at("sandbox").get<std::string>();
    r.created_at = j.at("created_at").get<std::string>();
    r.taken_ns = j.at("taken_ns").get<int64_t>();
    r.volume = j.at("volume").get<std::string>();
    r.workspace_digest = j.value("workspace_digest", "");
    return r;
  } catch (const nlohmann::json::exception& e) {
    return Internal(std::string("malformed snapshot record: ") + e.what());
  }
}

std::string SnapshotVolumePrefix(const std::string& sandbox_id) {
  return "snap-" + sandbox_id + "-";
}

std::string SnapshotCachePath(const SandboxRecord& sandbox, const std::string& snapshot_id) {
  return SnapshotDir(sandbox) + "/" + snapshot_id + ".cache";
}

SnapshotRecord NewSnapshotRecord(const SandboxRecord& sandbox, const std::string& name) {
  std::random_device rd;
  char id[16];
  std::snprintf(id, sizeof(id), "%04x%08x", rd() & 0xffff, rd());
  SnapshotRecord r;
  r.id = id;
  r.name = name;
  r.sandbox_id = sandbox.id;
  r.created_at = NowRfc3339();
  struct timespec now;
  ::clock_gettime(CLOCK_REALTIME, &now);
  r.taken_ns = static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
  r.volume = SnapshotVolumePrefix(sandbox.id) + r.id;
  return r;
}

StatusOr<SnapshotLock> SnapshotLock::Take(const SandboxRecord& sandbox) {
  AB_RETURN_IF_ERROR(MakeDir(SnapshotDir(sandbox), 0700));
  AB_ASSIGN_OR_RETURN(
      UniqueFd fd, OpenFile(SnapshotDir(sandbox) + "/lock", O_RDWR | O_CREAT | O_NOFOLLOW, 0600));
  while (::flock(fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return ErrnoStatus("lock the snapshots of " + sandbox.id);
  }
  return SnapshotLock(std::move(fd));
}

Status SaveSnapshot(const SandboxRecord& sandbox, const SnapshotRecord& snapshot) {
  for (const SnapshotRecord& other : ListSnapshots(sandbox)) {
    if (!snapshot.name.empty() && other.name == snapshot.name && other.id != snapshot.id) {
      return AlreadyExists("sandbox " + sandbox.id + " already has a snapshot named \"" +
                           snapshot.name + "\" (" + other.id + ")");
    }
  }
  const std::string path = SnapshotDir(sandbox) + "/" + snapshot.id + ".json";
  AB_RETURN_IF_ERROR(WriteFile(path + ".tmp", SnapshotRecordToJson(snapshot) + "\n", 0600));
  if (::rename((path + ".tmp").c_str(), path.c_str()) != 0) return ErrnoStatus("rename " + path);
  return OkStatus();
}

Status RemoveSnapshotRecord(const SandboxRecord& sandbox, const std::string& id) {
  ::unlink(SnapshotCachePath(sandbox, id).c_str());
  const std::string path = SnapshotDir(sandbox) + "/" + id + ".json";
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return ErrnoStatus("remove " + path);
  return OkStatus();
}

std::vector<SnapshotRecord> ListSnapshots(const SandboxRecord& sandbox) {
  std::vector<SnapshotRecord> out;
  auto names = ListDir(SnapshotDir(sandbox));
  for (const std::string& name : names.ok() ? *names : std::vector<std::string>{}) {
    if (name.size() != 17 || name.substr(12) != ".json") continue;
    auto text = ReadFile(SnapshotDir(sandbox) + "/" + name);
    if (!text.ok()) continue;
    auto record = SnapshotRecordFromJson(*text);
    if (record.ok()) out.push_back(std::move(record).value());
  }
  std::sort(out.begin(), out.end(), [](const SnapshotRecord& a, const SnapshotRecord& b) {
    return a.taken_ns < b.taken_ns;
  });
  return out;
}

StatusOr<SnapshotRecord> FindSnapshot(const SandboxRecord& sandbox, const std::string& ref) {
  std::vector<SnapshotRecord> all = ListSnapshots(sandbox);
  int i = Match(all, ref, /*by_name=*/true);
  if (i == -2) return InvalidArgument("snapshot \"" + ref + "\" is ambiguous: give more digits");
  if (i < 0) return NotFound("sandbox " + sandbox.id + " has no snapshot \"" + ref + "\"");
  return all[static_cast<size_t>(i)];
}

StatusOr<std::pair<size_t, SnapshotRecord>> FindSnapshotIn(
    const std::vector<SandboxRecord>& sandboxes, const std::string& ref) {
  std::vector<SnapshotRecord> all;
  std::vector<size_t> owner;
  for (size_t s = 0; s < sandboxes.size(); ++s) {
    for (SnapshotRecord& r : ListSnapshots(sandboxes[s])) {
      all.push_back(std::move(r));
      owner.push_back(s);
    }
  }
  int i = Match(all, ref, /*by_name=*/false);
  if (i == -2) return InvalidArgument("snapshot \"" + ref + "\" is ambiguous: give more digits");
  if (i < 0) {
    return NotFound("no snapshot \"" + ref + "\" (give its id, or SANDBOX:NAME)");
  }
  return std::make_pair(owner[static_cast<size_t>(i)], all[static_cast<size_t>(i)]);
}

Status CheckNewSnapshot(const SandboxRecord& sandbox, const std::vector<SnapshotRecord>& held,
                        const std::string& name) {
  if (held.size() >= sandbox.spec.max_snapshots) {
    return ResourceExhausted("sandbox " + sandbox.id + " holds " + std::to_string(held.size()) +
                             " snapshot(s), its max_snapshots: remove one first (agentbox "
                             "snapshot rm)");
  }
  for (const SnapshotRecord& other : held) {
    if (!name.empty() && other.name == name) {
      return AlreadyExists("sandbox " + sandbox.id + " already has a snapshot named \"" + name +
                           "\" (" + other.id + ")");
    }
  }
  return OkStatus();
}

Status ValidateSnapshotName(const std::string& name) {
  Status st = ValidateSandboxName(name);
  if (st.ok()) return st;
  return InvalidArgument("invalid snapshot name \"" + name +
                         "\": use 1-64 of A-Z a-z 0-9 _ . -, starting with a letter or digit");
}

}  // namespace agentbox
