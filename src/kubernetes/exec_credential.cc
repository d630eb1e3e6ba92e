#include "kubernetes/exec_credential.h"

#include <ctime>
#include <nlohmann/json.hpp>

#include "sys/program_output.h"

extern char** environ;

namespace agentbox::kubernetes {
namespace {

constexpr auto kRefreshMargin = std::chrono::minutes(1);

// Parses exactly `digits` decimal digits at text[pos]; -1 when they are not there.
int Digits(std::string_view text, size_t pos, size_t digits) {
  if (pos + digits > text.size()) return -1;
  int v = 0;
  for (size_t i = pos; i < pos + digits; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

// "Z" or "+hh:mm"/"-hh:mm" as seconds east of UTC; nullopt for anything else.
std::optional<long> ZoneOffset(std::string_view zone) {
  if (zone == "Z" || zone == "z") return 0;
  if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') || zone[3] != ':') return std::nullopt;
  int hours = Digits(zone, 1, 2), minutes = Digits(zone, 4, 2);
  if (hours < 0 || minutes < 0) return std::nullopt;
  return (hours * 60L + minutes) * 60 * (zone[0] == '-' ? -1 : 1);
}

}  // namespace

std::optional<WallClock::time_point> ParseRfc3339(std::string_view t) {
  struct tm tm = {};
  tm.tm_year = Digits(t, 0, 4) - 1900;
  tm.tm_mon = Digits(t, 5, 2) - 1;
  tm.tm_mday = Digits(t, 8, 2);
  tm.tm_hour = Digits(t, 11, 2);
  tm.tm_min = Digits(t, 14, 2);
  tm.tm_sec = Digits(t, 17, 2);
  if (t.size() < 20 || t[4] != '-' || t[7] != '-' || (t[10] != 'T' && t[10] != 't') ||
      t[13] != ':' || t[16] != ':' || tm.tm_year < 0 || tm.tm_mon < 0 || tm.tm_mday < 1 ||
      tm.tm_hour < 0 || tm.tm_min < 0 || tm.tm_sec < 0) {
    return std::nullopt;
  }
  size_t pos = 19;
  if (t[pos] == '.') {  // fractions of a second: the token lives seconds or longer
    for (++pos; pos < t.size() && t[pos] >= '0' && t[pos] <= '9';) ++pos;
  }
  std::optional<long> offset = ZoneOffset(t.substr(pos));
  if (!offset) return std::nullopt;
  time_t utc = ::timegm(&tm) - *offset;
  return WallClock::from_time_t(utc);
}

StatusOr<ExecCredentialToken> ParseExecCredential(std::string_view output,
                                                  const std::string& api_version) {
  auto j = nlohmann::json::parse(output, nullptr, false);
  const std::string what = "the exec credential plugin's output";
  if (!j.is_object()) return Unavailable(what + " is not a JSON object");
  if (j.value("kind", "") != "ExecCredential" || j.value("apiVersion", "") != api_version) {
    return Unavailable(what + " is not an ExecCredential of " + api_version);
  }
  const auto status = j.value("status", nlohmann::json::object());
  ExecCredentialToken out;
  if (status.contains("token") && status["token"].is_string()) out.token = status["token"];
  if (out.token.empty())
    return Unavailable(what + " has no status.token (only tokens are supported)");
  if (status.contains("expirationTimestamp")) {
    const auto& ts = status["expirationTimestamp"];
    out.expires = ts.is_string() ? ParseRfc3339(ts.get<std::string>()) : std::nullopt;
    if (!out.expires) return Unavailable(what + " has an unreadable expirationTimestamp");
  }
  return out;
}

StatusOr<std::string> RunExecPlugin(const ExecPlugin& plugin) {
  ProgramRun run;
  run.argv.push_back(plugin.command);
  run.argv.insert(run.argv.end(), plugin.args.begin(), plugin.args.end());
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    if (kv.rfind("PATH=", 0) == 0) run.path = std::string(kv.substr(5));
    run.env.emplace_back(kv);
  }
  for (const auto& [key, value] : plugin.env) run.env.push_back(key + "=" + value);
  nlohmann::json info = {{"apiVersion", plugin.api_version},
                         {"kind", "ExecCredential"},
                         {"spec", {{"interactive", false}}}};
  run.env.push_back("KUBERNETES_EXEC_INFO=" + info.dump());
  StatusOr<std::string> out = RunForOutput(run);
  if (!out.ok()) return Unavailable("exec credential plugin: " + out.status().message());
  return out;
}

ExecTokenSource::ExecTokenSource(ExecPlugin plugin, Runner runner, Clock clock)
    : plugin_(std::move(plugin)), runner_(std::move(runner)), clock_(std::move(clock)) {}

StatusOr<std::string> ExecTokenSource::Token() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cached_ && (!cached_->expires || clock_() + kRefreshMargin < *cached_->expires)) {
    return cached_->token;
  }
  cached_.reset();
  AB_ASSIGN_OR_RETURN(std::string output, runner_(plugin_));
  AB_ASSIGN_OR_RETURN(ExecCredentialToken token, ParseExecCredential(output, plugin_.api_version));
  cached_ = std::move(token);
  return cached_->token;
}

void ExecTokenSource::Invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  cached_.reset();
}

}  // namespace agentbox::kubernetes
