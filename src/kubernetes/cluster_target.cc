#include "kubernetes/cluster_target.h"

#include <cstdlib>

#include "sys/file_util.h"

namespace agentbox::kubernetes {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// kubectl's rule: a kubeconfig named anywhere is used (and its errors are the user's to see);
// the default file only when it exists, so a pod without one falls to its service account.
bool UseKubeconfig(const KubernetesTarget& target, const ClusterEnv& env) {
  if (!target.kubeconfig.empty() || !env.kubeconfig.kubeconfig.empty()) return true;
  return !env.kubeconfig.home.empty() && PathExists(env.kubeconfig.home + "/.kube/config");
}

}  // namespace

ClusterEnv ClusterEnvFromProcess() {
  return {KubeconfigEnvFromProcess(), InClusterEnvFromProcess(), Env("AGENTBOX_KUBE_CONTEXT"),
          Env("AGENTBOX_KUBE_NAMESPACE")};
}

StatusOr<ClusterAccess> ResolveCluster(const KubernetesTarget& target, const ClusterEnv& env) {
  const std::string context = target.context.empty() ? env.context : target.context;
  StatusOr<ClusterAccess> access = NotFound("");
  if (UseKubeconfig(target, env)) {
    access = LoadKubeconfig({target.kubeconfig, context, false}, env.kubeconfig);
  } else if (!env.in_cluster.host.empty()) {
    if (!context.empty()) {
      return InvalidArgument("--context " + context +
                             ": there is no kubeconfig to take it from (agentbox runs in a pod "
                             "and uses its service account)");
    }
    access = LoadInCluster(env.in_cluster);
  } else {
    return Unavailable(
        "no Kubernetes cluster to use: no kubeconfig (--kubeconfig, $KUBECONFIG, "
        "~/.kube/config) and agentbox is not running in a pod");
  }
  if (!access.ok()) return access.status();
  const std::string ns = target.namespace_name.empty() ? env.namespace_name : target.namespace_name;
  if (!ns.empty()) access->namespace_name = ns;
  return access;
}

}  // namespace agentbox::kubernetes
