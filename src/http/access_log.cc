#include "http/access_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <ctime>

#include "base/utf8.h"

namespace agentbox {
namespace {

// RFC 3339 in UTC with milliseconds: "2026-12-03T12:34:56.789Z".
std::string Rfc3339(int64_t unix_ms) {
  time_t seconds = static_cast<time_t>(unix_ms / 1000);
  struct tm tm = {};
  gmtime_r(&seconds, &tm);
  char buf[40];
  size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof(buf) - n, ".%03dZ", static_cast<int>(unix_ms % 1000));
  return buf;
}

}  // namespace

StatusOr<std::unique_ptr<AccessLog>> AccessLog::Open(const std::string& where) {
  if (where == "-") return std::unique_ptr<AccessLog>(new AccessLog(2, false));
  if (where.empty()) return InvalidArgument("access log: give a file or - for stderr");
  int fd = ::open(where.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return ErrnoStatus("open the access log " + where);
  return std::unique_ptr<AccessLog>(new AccessLog(fd, true));
}

AccessLog::~AccessLog() {
  if (owned_) ::close(fd_);
}

std::string AccessLog::Line(const AccessRecord& r, int64_t unix_ms) {
  nlohmann::ordered_json j;
  j["time"] = Rfc3339(unix_ms);
  j["tenant"] = r.tenant.empty() ? nlohmann::ordered_json(nullptr)
                                 : nlohmann::ordered_json(SanitizeUtf8(r.tenant));
  j["method"] = SanitizeUtf8(r.method);
  j["path"] = SanitizeUtf8(r.path);
  if (!r.sandbox.empty()) j["sandbox"] = SanitizeUtf8(r.sandbox);
  j["status"] = r.status;
  j["duration_ms"] = std::round(r.duration_ms * 1000) / 1000;
  for (const auto& [key, value] : r.detail.items()) j[key] = value;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void AccessLog::Write(const AccessRecord& record) {
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  std::string line = Line(record, now) + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  ssize_t n;
  do n = ::write(fd_, line.data(), line.size());
  while (n < 0 && errno == EINTR);
  // A full disk or a closed stderr loses the line, never the request.
}

}  // namespace agentbox
