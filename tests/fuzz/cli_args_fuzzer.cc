// The arguments of `agentbox run`, `create` and `exec` (src/spec/run_args.*, exec_args.*): the
// input is split at NUL bytes into argv. An accepted invocation's spec must be storable: its
// policy JSON serializes (no invalid UTF-8 thrown on) and reads back unchanged, and the exec
// request it makes survives the agent wire whatever bytes the arguments hold.
#include <nlohmann/json.hpp>

#include "fuzz_util.h"
#include "proto/exec_wire.h"
#include "spec/exec_args.h"
#include "spec/run_args.h"
#include "spec/spec_json.h"

using namespace agentbox;

namespace {

void CheckStorable(const SpecOverlay& flags) {
  SandboxSpec spec = MergeSpec(SpecOverlay{}, flags);
  nlohmann::json shown = SpecToPolicyJson(spec);
  std::string text = shown.dump(2);  // what the state store writes
  auto again = SpecFromPolicyJson(nlohmann::json::parse(text));
  FUZZ_CHECK(again.ok(), again.status().message());
  FUZZ_CHECK(SpecToPolicyJson(*again) == shown, text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args = fuzz::Split(fuzz::AsText(data, size), '\0');
  if (auto run = ParseRunArgs(args); run.ok()) {
    if (!run->help) FUZZ_CHECK(!run->argv.empty(), "run accepted without a command");
    // run stores nothing, so its flags may hold any bytes; what create would accept must store.
    if (RequireUtf8Strings(run->flags).ok()) CheckStorable(run->flags);
  }
  // --help stops parsing (nothing is created), so only a create that would run must store.
  if (auto create = ParseCreateArgs(args); create.ok() && !create->run.help) {
    CheckStorable(create->run.flags);
  }
  if (auto exec = ParseExecArgs(args); exec.ok() && !exec->help) {
    ExecRequest request;
    request.argv = exec->argv;
    request.env = exec->env;
    if (exec->cwd) request.cwd = *exec->cwd;
    if (exec->timeout_seconds) request.timeout_seconds = *exec->timeout_seconds;
    // What `exec` sends the agent: must serialize whatever bytes the arguments hold.
    auto back = ExecRequestFromWire(ExecRequestToWire(request));
    FUZZ_CHECK(back.ok() || request.cwd.empty() || request.cwd[0] != '/', back.status().message());
  }
  return 0;
}
