// The agent protocol's framing (src/proto/agent_protocol.*): the input is the byte stream on the
// agent's socket, read with ReadFrame as both ends do (the agent reads requests and data, the
// host reads output and responses, and a compromised sandbox could write either). Each frame's
// payload goes where its type would take it: request JSON to the agent's field readers, a
// response to the host's result parser. A frame written by WriteFrame reads back unchanged.
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "agent/file_request.h"
#include "fuzz_util.h"
#include "proto/agent_protocol.h"
#include "proto/exec_wire.h"
#include "sys/unique_fd.h"

using namespace agentbox;

namespace {

// What the agent's connection handler does with a request frame, short of acting on it.
void ReadRequest(const std::string& payload) {
  auto request = nlohmann::json::parse(payload, nullptr, false);
  if (request.is_discarded() || !request.is_object()) return;
  (void)ExecRequestFromWire(payload);
  (void)StringField(request, "op");
  (void)PathField(request);
  (void)BoolField(request, "parents", true);
  (void)UintField(request, "max_bytes", 0);
  (void)UintField(request, "size", 0);
}

void ReadResponse(const std::string& payload) {
  (void)ExecResultFromWire(payload);
  auto response = nlohmann::json::parse(payload, nullptr, false);
  if (response.is_object() && response.contains("code") && response["code"].is_string()) {
    (void)StatusCodeFromName(response["code"].get<std::string>());
  }
}

// A fresh socket pair, so the echoed frame is the only thing on it.
void CheckRoundTrip(const Frame& frame) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return;
  UniqueFd writer(fds[0]), reader(fds[1]);
  FUZZ_CHECK(WriteFrame(writer.get(), frame.type, frame.payload).ok(), "WriteFrame failed");
  auto back = ReadFrame(reader.get());
  FUZZ_CHECK(back.ok(), back.status().message());
  FUZZ_CHECK(back->type == frame.type && back->payload == frame.payload, "frame changed");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;  // stays within one socket buffer: no reader thread needed
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return 0;
  UniqueFd writer(fds[0]), reader(fds[1]);
  if (size > 0 && ::write(writer.get(), data, size) != static_cast<ssize_t>(size)) return 0;
  ::shutdown(writer.get(), SHUT_WR);  // the peer hangs up after its bytes: EOF ends the loop
  for (int i = 0; i < 64; ++i) {
    int passed = -1;
    auto frame = ReadFrame(reader.get(), &passed);
    UniqueFd passed_fd(passed);
    if (!frame.ok()) break;
    FUZZ_CHECK(frame->payload.size() <= kMaxFramePayload, "frame over the limit");
    if (frame->type == FrameType::kRequest) ReadRequest(frame->payload);
    if (frame->type == FrameType::kResponse) ReadResponse(frame->payload);
    if (i == 0) CheckRoundTrip(*frame);
  }
  return 0;
}
