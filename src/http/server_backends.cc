#include "http/server_backends.h"

#include <algorithm>
#include <optional>
#include <string>

namespace agentbox {

using nlohmann::json;

StatusOr<BackendKind> ServerBackends::Parse(std::string_view name) {
  std::optional<BackendKind> kind = BackendFromName(name);
  if (!kind) {
    return InvalidArgument("expected \"native\", \"docker\" or \"kubernetes\", got \"" +
                           std::string(name) + "\"");
  }
  return *kind;
}

Status ServerBackends::ConfigureDefault(const json& value) {
  if (!value.is_string()) return InvalidArgument("\"backend\": expected a backend's name");
  StatusOr<BackendKind> kind = Parse(value.get<std::string>());
  if (!kind.ok()) return InvalidArgument("\"backend\": " + kind.status().message());
  default_ = *kind;
  return OkStatus();
}

Status ServerBackends::ConfigureAllowed(const json& value) {
  const std::string at = "\"allowed_backends\": ";
  if (!value.is_array() || value.empty()) {
    return InvalidArgument(at + "expected a non-empty list of backend names");
  }
  std::vector<BackendKind> kinds;
  for (const json& entry : value) {
    if (!entry.is_string()) return InvalidArgument(at + "expected backend names");
    StatusOr<BackendKind> kind = Parse(entry.get<std::string>());
    if (!kind.ok()) return InvalidArgument(at + kind.status().message());
    if (std::find(kinds.begin(), kinds.end(), *kind) != kinds.end()) {
      return InvalidArgument(at + BackendName(*kind) + " appears twice");
    }
    kinds.push_back(*kind);
  }
  allowed_ = std::move(kinds);
  return OkStatus();
}

bool ServerBackends::Allowed(BackendKind kind) const {
  return allowed_.empty() || std::find(allowed_.begin(), allowed_.end(), kind) != allowed_.end();
}

std::string ServerBackends::AllowedNames() const {
  std::string names;
  for (BackendKind kind : allowed_)
    names += (names.empty() ? "" : ", ") + std::string(BackendName(kind));
  return names;
}

Status ServerBackends::Check(const std::string& where) const {
  if (Allowed(default_)) return OkStatus();
  return InvalidArgument(where + ": " + BackendName(default_) +
                         " is not one of the config's \"allowed_backends\" (" + AllowedNames() +
                         ")");
}

Status ServerBackends::ApplyToPolicy(json* policy) const {
  auto it = policy->find("backend");
  if (it == policy->end()) {
    (*policy)["backend"] = BackendName(default_);
    return OkStatus();
  }
  std::optional<BackendKind> asked =
      it->is_string() ? BackendFromName(it->get<std::string>()) : std::nullopt;
  if (!asked) return InvalidArgument("\"backend\": expected a backend's name");
  if (!Allowed(*asked)) {
    return InvalidArgument("\"backend\": " + std::string(BackendName(*asked)) +
                           " is not allowed on this server (allowed_backends: " + AllowedNames() +
                           ")");
  }
  return OkStatus();
}

}  // namespace agentbox
