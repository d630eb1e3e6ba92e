// Bearer tokens and tenants for `agentbox serve --tokens FILE`.
//
//   {"tokens": [{"token": "s3cret...", "tenant": "a", "max_sandboxes": 10,
//                "max_concurrent_execs": 4}]}
//
// A token names its tenant; a tenant may have several tokens (each may state quotas: the
// smallest stated one wins). A quota left out, or 0, is unlimited.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace agentbox {

// The shortest token a tokens file may hold: 16 characters of `openssl rand -hex 8` and up.
inline constexpr size_t kMinTokenLength = 16;

struct TenantToken {
  std::string token;
  std::string tenant;
  uint32_t max_sandboxes = 0;         // 0: unlimited
  uint32_t max_concurrent_execs = 0;  // 0: unlimited
};

// Who a request acts for. Without a tokens file everyone is the one anonymous tenant "",
// which sees every sandbox (the unix socket's 0600 mode is then the access control).
struct Caller {
  std::string tenant;
  uint32_t max_sandboxes = 0;
  uint32_t max_concurrent_execs = 0;
  bool anonymous() const { return tenant.empty(); }
};

// A tokens file larger than this is refused: it is read whole into memory.
inline constexpr size_t kMaxTokensFileBytes = 1 << 20;

class TokenTable {
 public:
  // Strict: unknown keys, an empty or duplicate token, a malformed tenant name (that of a
  // sandbox name) or a negative quota are kInvalidArgument naming `source` and the entry; so
  // is a text over kMaxTokensFileBytes or beyond base/json_limits.h.
  static StatusOr<TokenTable> Parse(std::string_view text, std::string_view source);
  static StatusOr<TokenTable> Load(const std::string& path);

  // The caller an "Authorization" header value stands for. Every failure is the same
  // "missing or unknown bearer token" Status: the server answers 401 and never says which.
  StatusOr<Caller> Authenticate(std::string_view authorization) const;
  size_t size() const { return tokens_.size(); }

 private:
  std::vector<TenantToken> tokens_;
};

// Compares in time independent of where the strings differ, so a token cannot be guessed one
// byte at a time from response times.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace agentbox
