// LoadKubeconfig(): a ClusterAccess from kubeconfig files, as kubectl finds and reads them.
//
// Which files: --kubeconfig when given, else each file of $KUBECONFIG (':'-separated, merged:
// the first file that names a cluster, context or user wins, the first current-context wins),
// else ~/.kube/config. Which context: the one asked for, else current-context. What is read:
// the cluster's server, certificate-authority(-data), insecure-skip-tls-verify; the user's
// token, tokenFile, client-certificate(-data) + client-key(-data), exec; the context's
// namespace ("default" when it names none). Relative paths are against the file's directory.
//
// Every bad case is one kInvalidArgument line naming the file and what is wrong (no such
// context, an unreadable CA, a user without credentials agentbox can use, ...), except a file
// that cannot be read at all (kNotFound / kPermissionDenied naming it).
// insecure-skip-tls-verify, and an http:// server, are refused unless allow_insecure_tls.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "kubernetes/cluster_access.h"

namespace agentbox::kubernetes {

struct KubeconfigRequest {
  std::string path;     // --kubeconfig; "": $KUBECONFIG, then ~/.kube/config
  std::string context;  // --context; "": current-context
  bool allow_insecure_tls = false;
};

// What the process environment says (given, not read, so tests pass their own).
struct KubeconfigEnv {
  std::string kubeconfig;  // $KUBECONFIG
  std::string home;        // $HOME
};
KubeconfigEnv KubeconfigEnvFromProcess();

// The files to read, in order of precedence.
std::vector<std::string> KubeconfigPaths(const KubeconfigRequest& request,
                                         const KubeconfigEnv& env);

StatusOr<ClusterAccess> LoadKubeconfig(const KubeconfigRequest& request, const KubeconfigEnv& env);

}  // namespace agentbox::kubernetes
