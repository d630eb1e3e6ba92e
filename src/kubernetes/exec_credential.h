// Exec credential plugins (client-go's ExecCredential, as kubectl runs them for GKE, EKS, AKS,
// OIDC logins): run the kubeconfig's command with KUBERNETES_EXEC_INFO set, read status.token
// from the ExecCredential it prints, and keep that token until its expirationTimestamp (or for
// the life of the process when it names none), as client-go does.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "kubernetes/cluster_access.h"

namespace agentbox::kubernetes {

using WallClock = std::chrono::system_clock;

struct ExecCredentialToken {
  std::string token;
  std::optional<WallClock::time_point> expires;  // none: good until the server says otherwise
};

// The token of a plugin's output. kUnavailable with one line when it is not JSON, not an
// ExecCredential of `api_version`, has no status.token (a plugin that returns only a client
// certificate is not supported yet) or an unreadable expirationTimestamp.
StatusOr<ExecCredentialToken> ParseExecCredential(std::string_view output,
                                                  const std::string& api_version);

// RFC 3339 ("2026-12-05T08:00:00Z", fractions and offsets too) as a time point; nullopt if not.
std::optional<WallClock::time_point> ParseRfc3339(std::string_view text);

// Runs the plugin (its env added to ours, KUBERNETES_EXEC_INFO set, no terminal) and returns
// its stdout; kUnavailable naming the command when it is missing, fails or hangs (60 s).
StatusOr<std::string> RunExecPlugin(const ExecPlugin& plugin);

// The token, run again only when the cached one is within a minute of expiring or was dropped
// (Invalidate, after the server answered 401). Thread-safe: serve's workers share one.
class ExecTokenSource {
 public:
  using Runner = std::function<StatusOr<std::string>(const ExecPlugin&)>;
  using Clock = std::function<WallClock::time_point()>;
  explicit ExecTokenSource(
      ExecPlugin plugin, Runner runner = RunExecPlugin,
      Clock clock = [] { return WallClock::now(); });
  StatusOr<std::string> Token();
  void Invalidate();

 private:
  ExecPlugin plugin_;
  Runner runner_;
  Clock clock_;
  std::mutex mu_;
  std::optional<ExecCredentialToken> cached_;
};

}  // namespace agentbox::kubernetes
