// Policy files (src/spec/policy_file.*): any bytes given as --policy or as a POST /v1/sandboxes
// body. Beyond not crashing: an accepted policy shown back (SpecToPolicyJson, what inspect prints
// and the state store saves) parses again to the same spec, so a saved record always reloads.
#include <nlohmann/json.hpp>

#include "fuzz_util.h"
#include "spec/policy_file.h"
#include "spec/spec_json.h"

using namespace agentbox;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto overlay = ParsePolicyJson(fuzz::AsText(data, size), "fuzz.json");
  if (!overlay.ok()) {
    FUZZ_CHECK(overlay.status().code() == StatusCode::kInvalidArgument, overlay.status().message());
    return 0;
  }
  SandboxSpec spec = MergeSpec(*overlay, SpecOverlay{});
  nlohmann::json shown = SpecToPolicyJson(spec);
  auto again = SpecFromPolicyJson(shown);
  FUZZ_CHECK(again.ok(), again.status().message());
  FUZZ_CHECK(SpecToPolicyJson(*again) == shown, shown.dump());
  return 0;
}
