#include "core/session_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "sys/unique_fd.h"

namespace agentbox {

std::string SessionLogPath(const std::string& state_dir) { return state_dir + "/session.log"; }

Status AppendSessionRecord(const std::string& state_dir, const nlohmann::ordered_json& record) {
  // Invalid UTF-8 (a command's argv may hold any bytes) is replaced, never a throw.
  std::string line = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.push_back('\n');
  const std::string path = SessionLogPath(state_dir);
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) return ErrnoStatus("open the session log " + path);
  // One write: O_APPEND puts the whole line at the end, whoever else appends meanwhile.
  ssize_t n;
  do {
    n = ::write(fd.get(), line.data(), line.size());
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(line.size())) {
    return n < 0 ? ErrnoStatus("append to " + path) : Internal("short append to " + path);
  }
  // Start the writeback, do not wait for it (core/session_log.h: what survives which crash).
  (void)::sync_file_range(fd.get(), 0, 0, SYNC_FILE_RANGE_WRITE);
  return OkStatus();
}

StatusOr<SessionLog> ParseSessionLog(const std::string& text) {
  SessionLog log;
  size_t line_no = 0;
  for (size_t at = 0; at < text.size();) {
    ++line_no;
    const size_t nl = text.find('\n', at);
    if (nl == std::string::npos) {
      log.torn_tail = true;
      break;
    }
    const std::string line = text.substr(at, nl - at);
    at = nl + 1;
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("op") || !j["op"].is_string()) {
      return InvalidArgument("session log line " + std::to_string(line_no) +
                             " is not a record (a JSON object with an \"op\")");
    }
    log.records.push_back(std::move(j));
    log.lines.push_back(line_no);
  }
  return log;
}

}  // namespace agentbox
