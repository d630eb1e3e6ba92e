// `agentbox image ls|inspect|rm|prune`: the native backend's image store (image/image_store.h).
#include <nlohmann/json.hpp>
#include <set>

#include "app/backends.h"
#include "app/cli_image.h"
#include "core/state_store.h"
#include "image/image_ref.h"
#include "image/image_store.h"
#include "spec/units.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

using image::ImageRecord;
using image::ImageStore;

nlohmann::json RecordJson(const ImageRecord& r) {
  nlohmann::json names = nlohmann::json::array();
  for (const std::string& n : r.names) names.push_back(image::FamiliarName(n));
  return {{"id", r.id},
          {"names", names},
          {"manifest_digest", r.manifest_digest},
          {"size", r.size},
          {"layers", r.config.diff_ids},
          {"platform", image::PlatformString(r.config.platform)},
          {"created", r.config.created},
          {"added_at", r.added_at},
          {"source", r.source},
          {"config",
           {{"env", r.config.env},
            {"working_dir", r.config.working_dir},
            {"user", r.config.user},
            {"entrypoint", r.config.entrypoint},
            {"cmd", r.config.cmd}}}};
}

// Why `r` cannot go now: a run holds its lock, or a running sandbox was made from it.
Status InUse(const ImageStore& store, const ImageRecord& r, image::StoreLock& lock) {
  AB_ASSIGN_OR_RETURN(lock, store.TryLockImageExclusive(r.id));
  if (!lock.held()) {
    return Unavailable("image " + r.id.substr(0, 19) + " is in use by a running `agentbox run`");
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return manager.status();
  std::set<std::string> known;
  for (const SandboxStatus& s : manager->List()) {
    known.insert(s.record.id);
    // A docker sandbox's image_id names the daemon's image, not one of the store's.
    if (s.state == SandboxState::kRunning && s.record.backend == BackendKind::kNative &&
        s.record.image_id == r.id) {
      return Unavailable("image " + r.id.substr(0, 19) + " is in use by sandbox " + s.record.id +
                         " (agentbox rm it first)");
    }
  }
  // A sandbox being made has its image's marker (native_backend.cc) but no record yet.
  const std::string dir = StateRootPath() + "/sandboxes";
  auto ids = ListDir(dir);
  for (const std::string& id : ids.ok() ? *ids : std::vector<std::string>{}) {
    auto marker = ReadFile(dir + "/" + id + "/image");
    if (marker.ok() && *marker == r.id && known.count(id) == 0 &&
        !PathExists(dir + "/" + id + "/sandbox.json")) {
      return Unavailable("image " + r.id.substr(0, 19) + " is in use by sandbox " + id +
                         ", being created");
    }
  }
  return OkStatus();
}

std::string ShortId(const std::string& id) { return id.substr(7, 12); }

}  // namespace

int ImageLsSubcommand(const Args& args) {
  bool json = args.size() == 1 && args[0] == "--json";
  if (!args.empty() && !json) return FailWith(InvalidArgument("usage: agentbox image ls [--json]"));
  AB_ASSIGN_OR_RETURN_FAIL(ImageStore store, ImageStore::Open(StateRootPath()));
  AB_ASSIGN_OR_RETURN_FAIL(std::vector<ImageRecord> images, store.List());
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const ImageRecord& r : images) out.push_back(RecordJson(r));
    WriteStdout(out.dump() + "\n");
    return 0;
  }
  char line[512];
  std::snprintf(line, sizeof(line), "%-40s %-12s %8s %-6s %s\n", "NAME", "ID", "SIZE", "LAYERS",
                "ADDED");
  WriteStdout(line);
  for (const ImageRecord& r : images) {
    std::vector<std::string> names = r.names;
    if (names.empty()) names.push_back("<none>");
    for (const std::string& n : names) {
      std::snprintf(line, sizeof(line), "%-40s %-12s %8s %-6zu %s\n",
                    image::FamiliarName(n).c_str(), ShortId(r.id).c_str(),
                    FormatSize(r.size).c_str(), r.config.diff_ids.size(), r.added_at.c_str());
      WriteStdout(line);
    }
  }
  return 0;
}

int ImageInspectSubcommand(const Args& args) {
  if (args.size() != 1) return FailWith(InvalidArgument("usage: agentbox image inspect REF"));
  AB_ASSIGN_OR_RETURN_FAIL(ImageStore store, ImageStore::Open(StateRootPath()));
  AB_ASSIGN_OR_RETURN_FAIL(ImageRecord r, store.Resolve(args[0]));
  WriteStdout(RecordJson(r).dump(2) + "\n");
  return 0;
}

int ImageRmSubcommand(Args args) {
  const bool json = TakeFlag(args, "--json");
  if (args.empty()) return FailWith(InvalidArgument("usage: agentbox image rm [--json] REF..."));
  AB_ASSIGN_OR_RETURN_FAIL(ImageStore store, ImageStore::Open(StateRootPath()));
  nlohmann::json done = nlohmann::json::array();
  // Each REF is done before the next is tried: with --json, what was done before a failure is
  // printed before its error.
  auto fail = [&](const Status& st) {
    if (json) WriteStdout(done.dump() + "\n");
    return FailWith(st);
  };
  for (const std::string& ref : args) {
    auto r = store.Resolve(ref);
    if (!r.ok()) return fail(r.status());
    auto parsed = image::ParseImageRef(ref);
    std::string name = parsed.ok() ? parsed->Canonical() : "";
    bool is_name = std::find(r->names.begin(), r->names.end(), name) != r->names.end();
    if (is_name && r->names.size() > 1) {  // other names keep the image
      if (Status st = store.Untag(*r, name); !st.ok()) return fail(st);
      done.push_back({{"ref", ref}, {"untagged", image::FamiliarName(name)}});
      if (!json) WriteStdout("untagged " + image::FamiliarName(name) + "\n");
      continue;
    }
    image::StoreLock lock;
    if (Status st = InUse(store, *r, lock); !st.ok()) return fail(st);
    if (Status st = store.RemoveImage(*r); !st.ok()) return fail(st);
    done.push_back({{"ref", ref}, {"removed", r->id}});
    if (!json) WriteStdout("removed " + r->id + "\n");
  }
  if (json) WriteStdout(done.dump() + "\n");
  return 0;
}

int ImagePruneSubcommand(Args args) {
  const bool json = TakeFlag(args, "--json");
  bool all = args.size() == 1 && args[0] == "--all";
  if (!args.empty() && !all)
    return FailWith(InvalidArgument("usage: agentbox image prune [--all] [--json]"));
  AB_ASSIGN_OR_RETURN_FAIL(ImageStore store, ImageStore::Open(StateRootPath()));
  AB_ASSIGN_OR_RETURN_FAIL(std::vector<ImageRecord> images, store.List());
  std::vector<std::string> removed;
  for (const ImageRecord& r : images) {
    if (!all && !r.names.empty()) continue;
    image::StoreLock lock;
    if (!InUse(store, r, lock).ok()) continue;  // kept: it is in use
    if (Status st = store.RemoveImage(r); !st.ok()) return FailWith(st);
    removed.push_back(r.id);
    if (!json) WriteStdout("removed " + r.id + "\n");
  }
  const std::vector<std::string> gc = CollectImageGarbage();
  if (json) {
    WriteStdout(nlohmann::json{{"removed", removed}, {"gc", gc}}.dump() + "\n");
  } else {
    for (const std::string& line : gc) WriteStdout(line + "\n");
  }
  return 0;
}

std::vector<std::string> CollectImageGarbage() {
  std::string dir = StateRootPath() + "/images";
  if (!PathExists(dir)) return {};
  auto store = ImageStore::Open(StateRootPath());
  if (!store.ok()) return {"images: " + store.status().message()};
  auto lock = store->TryLockExclusive();
  if (!lock.ok() || !lock->held()) {
    return {"images: a pull or load is running; its layers are left for the next gc"};
  }
  auto removed = store->CollectGarbage();
  if (!removed.ok()) return {"images: " + removed.status().message()};
  return *removed;
}

}  // namespace agentbox
