// AccessLog: serve's access and audit log, one JSON object per line per answered request.
//
// Who (tenant, or null for a caller not yet known or anonymous), what (method, path without the
// query, the sandbox it names, the handler's own details such as an exec's reason and exit code
// or an MCP call's method and tool), the result (HTTP status) and how long it took. Never a
// token, a header, a body, a query string or any command output: the log is safe to ship.
// Lines are written whole with one write(2) on an O_APPEND file (or stderr), so lines of
// concurrent requests never interleave and `logrotate copytruncate` works.
#pragma once

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"

namespace agentbox {

struct AccessRecord {
  std::string tenant;  // "" : anonymous or not authenticated (null in the line)
  std::string method;
  std::string path;
  std::string sandbox;  // the id the route names, "" : none
  int status = 0;
  double duration_ms = 0;
  nlohmann::json detail = nlohmann::json::object();  // the handler's, merged in
};

class AccessLog {
 public:
  // "-" is stderr; anything else a file, created 0600 if missing and appended to.
  static StatusOr<std::unique_ptr<AccessLog>> Open(const std::string& where);
  ~AccessLog();

  void Write(const AccessRecord& record);
  // The line Write writes for `record` at `unix_ms`, without the newline (unit tests).
  static std::string Line(const AccessRecord& record, int64_t unix_ms);

 private:
  explicit AccessLog(int fd, bool owned) : fd_(fd), owned_(owned) {}
  int fd_;
  bool owned_;
  std::mutex mutex_;  // one write per line already keeps lines whole; this keeps their order
};

}  // namespace agentbox
