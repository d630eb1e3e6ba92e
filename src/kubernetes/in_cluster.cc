#include "kubernetes/in_cluster.h"

#include <cstdlib>

#include "sys/file_util.h"

namespace agentbox::kubernetes {
namespace {

constexpr size_t kMaxFile = size_t{1} << 20;

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace

InClusterEnv InClusterEnvFromProcess() {
  InClusterEnv env;
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  env.host = host ? host : "";
  env.port = port ? port : "";
  return env;
}

StatusOr<ClusterAccess> LoadInCluster(const InClusterEnv& env) {
  if (env.host.empty() || env.port.empty()) {
    return Unavailable("not in a Kubernetes pod: KUBERNETES_SERVICE_HOST and _PORT are not set");
  }
  ClusterAccess access;
  access.origin = "the pod's service account";
  bool v6 = env.host.find(':') != std::string::npos;
  access.server = "https://" + (v6 ? "[" + env.host + "]" : env.host) + ":" + env.port;
  access.token_file = env.account_dir + "/token";
  StatusOr<std::string> token = ReadFileAtMost(access.token_file, kMaxFile);
  if (!token.ok())
    return Unavailable("in-cluster: cannot read the service account token (" +
                       token.status().message() + ")");
  StatusOr<std::string> ca = ReadFileAtMost(env.account_dir + "/ca.crt", kMaxFile);
  if (!ca.ok())
    return Unavailable("in-cluster: cannot read the service account CA (" + ca.status().message() +
                       ")");
  access.ca_pem = *ca;
  StatusOr<std::string> ns = ReadFileAtMost(env.account_dir + "/namespace", kMaxFile);
  if (ns.ok() && !Trimmed(*ns).empty()) access.namespace_name = Trimmed(*ns);
  return access;
}

}  // namespace agentbox::kubernetes
