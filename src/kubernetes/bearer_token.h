// BearerToken: the Authorization header a ClusterAccess's user sends: its token, its token file
// (read again for every request: service account tokens rotate), or its exec plugin's token
// (cached, kubernetes/exec_credential.h); none for a client certificate or an anonymous user.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "kubernetes/cluster_access.h"
#include "kubernetes/exec_credential.h"

namespace agentbox::kubernetes {

class BearerToken {
 public:
  BearerToken() = default;  // no token
  explicit BearerToken(const ClusterAccess& access);
  // For tests: a plugin run by `runner` instead of the real thing.
  BearerToken(const ExecPlugin& plugin, ExecTokenSource::Runner runner);

  // "Authorization: Bearer ..." or "" when the user has no token; the token file's or plugin's
  // error as it is.
  StatusOr<std::string> Header();
  // The server answered 401: a plugin's cached token is dropped, so the next Header runs it
  // again. True when that may help (there was a plugin), so the caller retries once.
  bool Rejected();

 private:
  std::string token_;
  std::string token_file_;
  std::shared_ptr<ExecTokenSource> exec_;  // shared: copies of a client share one cache
};

}  // namespace agentbox::kubernetes
