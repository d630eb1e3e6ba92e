// A terminal exec's messages beside its request (proto/agent_protocol.h, ExecRequest::tty): the
// window size, which the client sends at the start and on every resize, and its bounds. The same
// JSON is what serve's terminal WebSocket takes from its clients (docs/api.md).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace agentbox {

struct WindowSize {
  uint16_t rows = 24;
  uint16_t cols = 80;
};

// 1..1000 each: a real terminal, not a value that makes programs allocate gigabytes of screen.
inline constexpr uint64_t kMaxWindowDimension = 1000;
Status CheckWindowSize(uint64_t rows, uint64_t cols);

// {"rows":R,"cols":C}: a kResize frame's payload.
std::string WindowSizeToWire(WindowSize size);
// Strict: kInvalidArgument naming what is wrong.
StatusOr<WindowSize> WindowSizeFromWire(const std::string& json);

}  // namespace agentbox
