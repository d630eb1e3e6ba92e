#include "http/auth.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/json_limits.h"
#include "core/state_store.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

using nlohmann::json;

StatusOr<uint32_t> Quota(const json& entry, const char* key) {
  if (!entry.contains(key)) return 0u;
  const json& v = entry[key];
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 1000000) {
    return InvalidArgument(std::string(key) + " must be an integer from 0 to 1000000");
  }
  return static_cast<uint32_t>(v.get<int64_t>());
}

StatusOr<TenantToken> ParseEntry(const json& entry) {
  if (!entry.is_object()) return InvalidArgument("expected an object");
  for (const auto& [key, value] : entry.items()) {
    if (key != "token" && key != "tenant" && key != "max_sandboxes" &&
        key != "max_concurrent_execs") {
      return InvalidArgument("unknown key \"" + key + "\"");
    }
  }
  TenantToken t;
  if (!entry.contains("token") || !entry["token"].is_string()) {
    return InvalidArgument("\"token\" must be a string");
  }
  t.token = entry["token"].get<std::string>();
  // A short token is guessed by whoever can reach the port; one with spaces or control
  // characters cannot be sent in an Authorization header as written.
  const bool visible =
      std::all_of(t.token.begin(), t.token.end(), [](char c) { return c > ' ' && c < 0x7f; });
  if (t.token.size() < kMinTokenLength || !visible) {
    return InvalidArgument("\"token\" must be at least " + std::to_string(kMinTokenLength) +
                           " visible ASCII characters (make one with `openssl rand -hex 16`)");
  }
  if (!entry.contains("tenant") || !entry["tenant"].is_string()) {
    return InvalidArgument("\"tenant\" must be a string");
  }
  t.tenant = entry["tenant"].get<std::string>();
  if (!ValidateSandboxName(t.tenant).ok()) {
    return InvalidArgument("\"tenant\" must be 1-64 of [A-Za-z0-9_.-]");
  }
  AB_ASSIGN_OR_RETURN(t.max_sandboxes, Quota(entry, "max_sandboxes"));
  AB_ASSIGN_OR_RETURN(t.max_concurrent_execs, Quota(entry, "max_concurrent_execs"));
  return t;
}

// The smallest stated quota of two (0 = unlimited).
uint32_t Tighter(uint32_t a, uint32_t b) {
  if (a == 0) return b;
  if (b == 0) return a;
  return std::min(a, b);
}

}  // namespace

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  }
  return diff == 0;
}

StatusOr<TokenTable> TokenTable::Parse(std::string_view text, std::string_view source) {
  std::string where(source);
  auto parsed = ParseJsonWithLimits(text, {.max_bytes = kMaxTokensFileBytes});
  if (!parsed.ok()) return InvalidArgument(where + ": " + parsed.status().message());
  json doc = std::move(*parsed);
  if (!doc.is_object() || !doc.contains("tokens") || !doc["tokens"].is_array() || doc.size() != 1) {
    return InvalidArgument(where + ": expected {\"tokens\": [...]}");
  }
  TokenTable table;
  for (size_t i = 0; i < doc["tokens"].size(); ++i) {
    auto entry = ParseEntry(doc["tokens"][i]);
    std::string at = where + ": tokens[" + std::to_string(i) + "]: ";
    if (!entry.ok()) return InvalidArgument(at + entry.status().message());
    for (const TenantToken& t : table.tokens_) {
      if (t.token == entry->token) return InvalidArgument(at + "duplicate token");
    }
    table.tokens_.push_back(std::move(*entry));
  }
  if (table.tokens_.empty()) return InvalidArgument(where + ": no tokens");
  return table;
}

StatusOr<TokenTable> TokenTable::Load(const std::string& path) {
  AB_ASSIGN_OR_RETURN(std::string text, ReadFileAtMost(path, kMaxTokensFileBytes));
  return Parse(text, path);
}

StatusOr<Caller> TokenTable::Authenticate(std::string_view authorization) const {
  Status denied = PermissionDenied("missing or unknown bearer token");
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return denied;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i]) return denied;
  }
  std::string_view token = authorization.substr(kScheme.size());
  const TenantToken* found = nullptr;
  for (const TenantToken& t : tokens_) {
    if (ConstantTimeEquals(t.token, token)) found = &t;
  }
  if (found == nullptr) return denied;
  Caller caller{found->tenant, 0, 0};
  for (const TenantToken& t : tokens_) {
    if (t.tenant != caller.tenant) continue;
    caller.max_sandboxes = Tighter(caller.max_sandboxes, t.max_sandboxes);
    caller.max_concurrent_execs = Tighter(caller.max_concurrent_execs, t.max_concurrent_execs);
  }
  return caller;
}

}  // namespace agentbox
