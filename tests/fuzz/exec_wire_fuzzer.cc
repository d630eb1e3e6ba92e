// The exec wire JSON (src/proto/exec_wire.*): requests the agent parses and results the host
// parses (the agent lives inside the box, so a result is only as trusted as the sandbox). The
// first byte picks the mode: parse the rest as wire JSON, or build an ExecRequest / ExecResult
// from arbitrary bytes and check it survives the wire unchanged (argv and env come from users
// and may hold any bytes, valid UTF-8 or not).
#include "fuzz_util.h"
#include "proto/exec_wire.h"

using namespace agentbox;

namespace {

void ParseWire(const std::string& text) {
  if (auto r = ExecRequestFromWire(text); r.ok()) {
    auto again = ExecRequestFromWire(ExecRequestToWire(*r));
    FUZZ_CHECK(again.ok(), again.status().message());
    FUZZ_CHECK(again->argv == r->argv && again->env == r->env && again->cwd == r->cwd,
               "request changed on a second trip");
  }
  if (auto r = ExecResultFromWire(text); r.ok()) {
    auto again = ExecResultFromWire(ExecResultToWire(*r));
    FUZZ_CHECK(again.ok(), again.status().message());
  }
}

void RoundTripRequest(fuzz::Reader& in) {
  ExecRequest r;
  r.argv.push_back(in.Text());
  for (int n = in.Byte() % 4; n > 0; --n) r.argv.push_back(in.Text());
  for (int n = in.Byte() % 3; n > 0; --n) {
    std::string key = in.Text();
    r.env.emplace_back(key, in.Text());
  }
  r.cwd = "/" + in.Text();
  uint64_t bits = in.U64();
  double seconds;
  static_assert(sizeof(bits) == sizeof(seconds));
  std::memcpy(&seconds, &bits, sizeof(seconds));
  if (seconds > 0 && seconds < 1e9) r.timeout_seconds = seconds;  // what flags accept
  r.output_limit = in.U64();
  r.pass_stdin = in.Byte() & 1;
  auto back = ExecRequestFromWire(ExecRequestToWire(r));
  FUZZ_CHECK(back.ok(), back.status().message());
  FUZZ_CHECK(back->argv == r.argv && back->env == r.env && back->cwd == r.cwd,
             "request changed on the wire");
  FUZZ_CHECK(back->output_limit == r.output_limit && back->pass_stdin == r.pass_stdin,
             "limits changed on the wire");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  fuzz::Reader in(data + 1, size - 1);
  if (data[0] & 1) {
    RoundTripRequest(in);
  } else {
    ParseWire(std::string(in.Rest()));
  }
  return 0;
}
