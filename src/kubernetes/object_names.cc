#include "kubernetes/object_names.h"

#include <cctype>

#include "base/sha256.h"

namespace agentbox::kubernetes {
namespace {

bool IsAlnumLower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

}  // namespace

std::string ManagedSelector() { return std::string(kLabelManagedBy) + "=" + kManagedByValue; }

std::string SandboxSelector(std::string_view id) {
  return ManagedSelector() + "," + kLabelSandbox + "=" + std::string(id);
}

std::string OwnerSelector(std::string_view owner) {
  return ManagedSelector() + "," + kLabelOwner + "=" + std::string(owner);
}

Status CheckSandboxId(std::string_view id) {
  bool ok = !id.empty() && id.size() <= 50 && IsAlnumLower(id.front()) && IsAlnumLower(id.back());
  for (char c : id) ok = ok && (IsAlnumLower(c) || c == '-');
  if (ok) return OkStatus();
  return InvalidArgument("sandbox id \"" + std::string(id) +
                         "\" cannot name a Kubernetes object (1-50 of a-z, 0-9 and '-', "
                         "alphanumeric at both ends)");
}

bool IsLabelValue(std::string_view value) {
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  bool ok = !value.empty() && value.size() <= 63 && alnum(value.front()) && alnum(value.back());
  for (char c : value) ok = ok && (alnum(c) || c == '-' || c == '_' || c == '.');
  return ok;
}

std::string NameLabelValue(std::string_view name) {
  if (IsLabelValue(name)) return std::string(name);
  return "h." + Sha256Of(std::string(name)).substr(7, 40);
}

std::string PodName(std::string_view id) { return "agentbox-" + std::string(id); }

std::string SecretName(std::string_view id) { return "agentbox-" + std::string(id) + "-token"; }

}  // namespace agentbox::kubernetes
