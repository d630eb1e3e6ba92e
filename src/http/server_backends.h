// Which backend makes the sandboxes `agentbox serve` creates (docs/api.md "Server config and
// limits"): the operator's default (`serve --backend NAME`, else the config's "backend", else
// native) for every create that names none — a REST create's body, an MCP session's sandbox —
// and, when the config's "allowed_backends" lists some, the only backends a request may name.
// An operator who deploys serve into a cluster sets "kubernetes" for both: every sandbox is a
// pod, and a body asking for native (which the pod could not give anyway) is refused up front.
//
// Pure: no backend is touched here; whether the host or cluster can make the box is the create's
// business.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "spec/sandbox_spec.h"

namespace agentbox {

class ServerBackends {
 public:
  // A backend's name as the flag or config gives it; unknown is kInvalidArgument listing the
  // known ones (the caller prefixes the flag or key).
  static StatusOr<BackendKind> Parse(std::string_view name);

  // The config's "backend" (a name) and "allowed_backends" (a non-empty list of names, no
  // repeats); kInvalidArgument naming the key otherwise.
  Status ConfigureDefault(const nlohmann::json& value);
  Status ConfigureAllowed(const nlohmann::json& value);
  void set_default(BackendKind kind) { default_ = kind; }

  // Once every source is in (file, then flags): the default must be one of the allowed ones;
  // `where` names where the default came from ("--backend", "FILE: \"backend\"").
  Status Check(const std::string& where) const;

  // A create's policy (validated already): "backend" set to the default when it names none; a
  // backend the operator does not allow is kInvalidArgument naming it and the allowed ones.
  Status ApplyToPolicy(nlohmann::json* policy) const;

  BackendKind default_backend() const { return default_; }
  // Empty: every backend may be asked for.
  const std::vector<BackendKind>& allowed() const { return allowed_; }

 private:
  bool Allowed(BackendKind kind) const;
  std::string AllowedNames() const;
  BackendKind default_ = BackendKind::kNative;
  std::vector<BackendKind> allowed_;
};

}  // namespace agentbox
