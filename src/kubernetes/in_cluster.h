// LoadInCluster(): a ClusterAccess for agentbox running in a pod, from its service account, as
// client-go's rest.InClusterConfig does: the server from KUBERNETES_SERVICE_HOST and
// KUBERNETES_SERVICE_PORT, the CA and the (rotating) token from the mounted service account
// directory, the namespace from its `namespace` file ("default" when it has none).
//
// kUnavailable with one line when not in a pod (no KUBERNETES_SERVICE_HOST) or when the token
// or CA cannot be read.
#pragma once

#include <string>

#include "base/status.h"
#include "kubernetes/cluster_access.h"

namespace agentbox::kubernetes {

inline constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

struct InClusterEnv {
  std::string host;  // $KUBERNETES_SERVICE_HOST
  std::string port;  // $KUBERNETES_SERVICE_PORT
  std::string account_dir = kServiceAccountDir;
};
InClusterEnv InClusterEnvFromProcess();

StatusOr<ClusterAccess> LoadInCluster(const InClusterEnv& env);

}  // namespace agentbox::kubernetes
