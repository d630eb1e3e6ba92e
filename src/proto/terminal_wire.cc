#include "proto/terminal_wire.h"

#include <nlohmann/json.hpp>

#include "base/json_limits.h"

namespace agentbox {

Status CheckWindowSize(uint64_t rows, uint64_t cols) {
  if (rows < 1 || rows > kMaxWindowDimension || cols < 1 || cols > kMaxWindowDimension) {
    return InvalidArgument("terminal: \"rows\" and \"cols\" must be 1 to " +
                           std::to_string(kMaxWindowDimension));
  }
  return OkStatus();
}

std::string WindowSizeToWire(WindowSize size) {
  return nlohmann::json{{"rows", size.rows}, {"cols", size.cols}}.dump();
}

StatusOr<WindowSize> WindowSizeFromWire(const std::string& text) {
  AB_ASSIGN_OR_RETURN(nlohmann::json j, ParseJsonWithLimits(text));
  if (!j.is_object() || !j.contains("rows") || !j.contains("cols") ||
      !j["rows"].is_number_unsigned() || !j["cols"].is_number_unsigned()) {
    return InvalidArgument("terminal: a window size is {\"rows\":R,\"cols\":C}");
  }
  const uint64_t rows = j["rows"].get<uint64_t>(), cols = j["cols"].get<uint64_t>();
  AB_RETURN_IF_ERROR(CheckWindowSize(rows, cols));
  return WindowSize{static_cast<uint16_t>(rows), static_cast<uint16_t>(cols)};
}

}  // namespace agentbox
