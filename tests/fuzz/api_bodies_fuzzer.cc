// The JSON bodies of the REST API (src/http/api_bodies.*): exec and create requests as a
// client sends them, and the output events of a streamed exec. Beyond not crashing: an accepted
// exec body goes onto the agent wire and back unchanged; an accepted create body is a policy
// the spec parser accepts; a stream of output split anywhere renders as the whole would.
#include <nlohmann/json.hpp>

#include "base/json_limits.h"
#include "base/utf8.h"
#include "fuzz_util.h"
#include "http/api_bodies.h"
#include "proto/exec_wire.h"
#include "spec/spec_json.h"

using namespace agentbox;

namespace {

void CheckExecBody(const nlohmann::json& body, std::string_view accept) {
  ExecRequest defaults;
  auto parsed = ParseExecBody(body, defaults, accept);
  if (!parsed.ok()) return;
  const ExecRequest& r = parsed->request;
  FUZZ_CHECK(!r.argv.empty(), "exec body accepted without argv");
  auto back = ExecRequestFromWire(ExecRequestToWire(r));
  if (!back.ok()) {
    FUZZ_CHECK(r.cwd.empty() || r.cwd[0] != '/', back.status().message());
    return;
  }
  FUZZ_CHECK(back->argv == r.argv && back->env == r.env && back->cwd == r.cwd,
             "exec request changed on the wire");
}

void CheckCreateBody(const nlohmann::json& body, const HostPathRules& rules) {
  auto parsed = ParseCreateBody(body, rules);
  if (!parsed.ok()) return;
  FUZZ_CHECK(!parsed->policy.contains("name"), "name left in the policy");
  if (!rules.allow_host_paths) {
    FUZZ_CHECK(!parsed->policy.contains("rootfs"), "a tenant got a rootfs through");
    if (parsed->policy.contains("workspace")) {
      // Only a name beneath the tenant's directory of the root: one component, not . or ..
      const std::string ws = parsed->policy["workspace"].get<std::string>();
      const std::string dir = rules.workspace_root + "/" + rules.tenant_dir + "/";
      FUZZ_CHECK(!rules.workspace_root.empty() && ws.starts_with(dir), "a host path got through");
      const std::string name = ws.substr(dir.size());
      FUZZ_CHECK(
          !name.empty() && name.find('/') == std::string::npos && name != "." && name != "..",
          "a workspace name left its tenant's directory: " + ws);
    }
  }
  // What the create helper does with it: dump to a file, read it back as a policy.
  auto spec = SpecFromPolicyJson(nlohmann::json::parse(parsed->policy.dump()));
  FUZZ_CHECK(spec.ok(), spec.status().message());
}

// Output chunks cut at `step` bytes, carried through Utf8Carry, render as the whole output.
void CheckStreamSplit(std::string_view bytes, size_t step) {
  Utf8Carry carry;
  std::string rendered;
  for (size_t at = 0; at < bytes.size(); at += step) {
    rendered += SanitizeUtf8(carry.Take(bytes.substr(at, step)));
  }
  rendered += SanitizeUtf8(carry.Flush());
  FUZZ_CHECK(rendered == SanitizeUtf8(bytes), "a split changed the streamed text");
  std::string event = StreamEvent(StreamFormat::kNdjson, "stdout", bytes);
  FUZZ_CHECK(!nlohmann::json::parse(event, nullptr, false).is_discarded(), event);
  (void)StreamEvent(StreamFormat::kSse, "stderr", bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::AsText(data, size);
  if (size > 0) CheckStreamSplit(text.substr(1), 1 + data[0] % 8);
  // As serve reads a body: within the nesting and number limits, or refused (a 400).
  auto parsed = ParseJsonWithLimits(text);
  if (!parsed.ok()) return 0;
  const nlohmann::json& body = *parsed;
  for (std::string_view accept : {"", "application/x-ndjson", "text/event-stream"}) {
    CheckExecBody(body, accept);
  }
  CheckCreateBody(body, {.allow_host_paths = true});
  CheckCreateBody(body, {});
  CheckCreateBody(body, {.workspace_root = "/srv/ws", .tenant_dir = "a"});
  return 0;
}
