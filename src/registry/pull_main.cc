// agentbox-pull: `agentbox image pull` (and `run --image` of an image the store lacks) run this
// helper, the one binary that links libcurl (see CMakeLists.txt: Debian's libcurl cannot be
// linked into the static agentbox). It pulls one image into the store and prints its id.
//
//   agentbox-pull --state-dir DIR [--platform OS/ARCH] [--insecure-registry HOST]...
//                 [--timeout SECONDS] [--max-layer-size SIZE] [--max-layer-entries N] [--json] REF
#include <cstdio>
#include <string>
#include <vector>

#include "image/image_store.h"
#include "registry/pull.h"
#include "spec/units.h"

namespace {

using agentbox::Status;

int Fail(const Status& st) {
  std::string msg = st.message();
  for (char& c : msg) {
    if (c == '\n') c = ' ';
  }
  std::fprintf(stderr, "agentbox: %s\n", msg.c_str());
  return 125;
}

Status ParseArgs(const std::vector<std::string>& args, std::string& state_dir,
                 agentbox::registry::PullRequest& req, bool& json) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool has_value = i + 1 < args.size();
    if (a == "--state-dir" && has_value) {
      state_dir = args[++i];
    } else if (a == "--platform" && has_value) {
      AB_ASSIGN_OR_RETURN(req.platform, agentbox::image::ParsePlatform(args[++i]));
    } else if (a == "--insecure-registry" && has_value) {
      req.registry.insecure_registries.push_back(args[++i]);
    } else if (a == "--timeout" && has_value) {
      AB_ASSIGN_OR_RETURN(double s, agentbox::ParseDuration(args[++i]));
      req.registry.timeout_seconds = s < 1 ? 1 : static_cast<int>(s);
    } else if (a == "--max-layer-size" && has_value) {
      AB_ASSIGN_OR_RETURN(req.limits.max_bytes, agentbox::ParseSize(args[++i]));
    } else if (a == "--max-layer-entries" && has_value) {
      AB_ASSIGN_OR_RETURN(req.limits.max_entries, agentbox::ParseCount(args[++i]));
    } else if (a == "--json") {
      json = true;
    } else if (!a.empty() && a[0] != '-' && req.ref.empty()) {
      req.ref = a;
    } else {
      return agentbox::InvalidArgument("image pull: unexpected argument \"" + a + "\"");
    }
  }
  if (state_dir.empty() || req.ref.empty()) {
    return agentbox::InvalidArgument("usage: agentbox image pull [--platform OS/ARCH] REF");
  }
  return agentbox::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string state_dir;
  agentbox::registry::PullRequest req;
  bool json = false;
  if (Status st = ParseArgs(args, state_dir, req, json); !st.ok()) return Fail(st);
  agentbox::registry::InitHttp();
  auto store = agentbox::image::ImageStore::Open(state_dir);
  if (!store.ok()) return Fail(store.status());
  auto record = agentbox::registry::Pull(*store, req);
  if (!record.ok()) return Fail(record.status());
  // An id is "sha256:" and hex: nothing to escape in JSON.
  std::printf(json ? "{\"id\":\"%s\"}\n" : "%s\n", record->id.c_str());
  return 0;
}
