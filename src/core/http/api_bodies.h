// The JSON bodies of the REST API (docs/api.md): strict parsing of requests and the events of
// a streamed exec. Pure, so every rule is unit-tested.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "core/exec_result.h"
#include "core/exec_wire.h"

namespace agentbox {

enum class StreamFormat { kNone, kNdjson, kSse };

struct ExecBody {
  ExecRequest request;
  std::optional<std::string> stdin_data;  // the command's stdin; /dev/null when absent
  StreamFormat stream = StreamFormat::kNone;
};

// POST /v1/sandboxes/{id}/exec: {argv, env, cwd, timeout, output_limit, stdin, stream} laid over
// `defaults` (the sandbox's policy). Without "stream", an Accept of application/x-ndjson or
// text/event-stream picks the stream. kInvalidArgument names the bad key.
StatusOr<ExecBody> ParseExecBody(const nlohmann::json& body, const ExecRequest& defaults,
                                 std::string_view accept);

struct CreateBody {
  nlohmann::json policy;  // the body without "name": a policy file's object
  std::string name;
};

// POST /v1/sandboxes: policy keys plus "name". The policy itself is validated by the spec's
// own parser; with host_paths_allowed false (a tenant over the network), "workspace" and
// "rootfs" are kPermissionDenied: they would hand the host's files to a remote caller.
StatusOr<CreateBody> ParseCreateBody(const nlohmann::json& body, bool host_paths_allowed);

// One output chunk ("stdout" / "stderr") as an NDJSON line or an SSE event.
std::string StreamEvent(StreamFormat format, std::string_view type, std::string_view data);
// The final event: {"type":"result","result":{...CONTRACT §1...}}.
std::string StreamResultEvent(StreamFormat format, const ExecResult& result);
// What a stream sends now and then while the command prints nothing, so that clients and
// proxies with idle timeouts keep it (Node's fetch drops a body after 300 s without a byte):
// an SSE comment, which readers ignore. Nothing ("") for NDJSON, every line of which must be a
// JSON object: an empty line or a new event type would break readers of that contract.
std::string_view StreamKeepAlive(StreamFormat format);

// Holds back an incomplete UTF-8 sequence at the end of a chunk until the next one, so a
// character split across two reads is not turned into two U+FFFD.
class Utf8Carry {
 public:
  std::string Take(std::string_view chunk);
  std::string Flush() { return std::exchange(pending_, {}); }

 private:
  std::string pending_;
};

}  // namespace agentbox
