// ResolveCluster(): which cluster and namespace a sandbox's KubernetesTarget (--kubeconfig,
// --context, --namespace) means on this host, as kubectl would choose, with agentbox's own
// environment as the operator's defaults:
//   - a kubeconfig when --kubeconfig is given, $KUBECONFIG is set, or ~/.kube/config exists
//     (kubernetes/kubeconfig.h reads it); its context: --context, else $AGENTBOX_KUBE_CONTEXT,
//     else the current one;
//   - else the pod's service account when agentbox runs in a pod (kubernetes/in_cluster.h);
//   - else kUnavailable, one line saying there is no cluster to use.
// The namespace: --namespace, else $AGENTBOX_KUBE_NAMESPACE, else the context's (the pod's).
#pragma once

#include <string>

#include "base/status.h"
#include "kubernetes/cluster_access.h"
#include "kubernetes/in_cluster.h"
#include "kubernetes/kubeconfig.h"
#include "spec/sandbox_spec.h"

namespace agentbox::kubernetes {

// What ResolveCluster reads of the process (given, not read, so tests pass their own).
struct ClusterEnv {
  KubeconfigEnv kubeconfig;
  InClusterEnv in_cluster;
  std::string context;         // $AGENTBOX_KUBE_CONTEXT
  std::string namespace_name;  // $AGENTBOX_KUBE_NAMESPACE
};
ClusterEnv ClusterEnvFromProcess();

StatusOr<ClusterAccess> ResolveCluster(const KubernetesTarget& target, const ClusterEnv& env);

}  // namespace agentbox::kubernetes
