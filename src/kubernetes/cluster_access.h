// ClusterAccess: how to reach one Kubernetes API server and who to be there, whichever source it
// came from (a kubeconfig context, kubernetes/kubeconfig.h; a pod's service account,
// kubernetes/in_cluster.h). Pure data; the REST client (kubernetes/api_client.h) consumes it.
//
// Files named by the source are read when it is loaded (so a bad path fails there, with one
// line), except token files, which rotate: they are read again for every request.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentbox::kubernetes {

// A client-go exec credential plugin (client.authentication.k8s.io ExecCredential): run it, read
// status.token from what it prints (kubernetes/exec_credential.h).
struct ExecPlugin {
  std::string api_version;  // "client.authentication.k8s.io/v1" or ".../v1beta1"
  // An absolute path, or a bare name looked up on $PATH when it runs (a relative path with a
  // '/' is made absolute against the kubeconfig's directory when loaded, as kubectl does).
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // added to agentbox's environment
};

struct ClusterAccess {
  std::string server;  // "https://host:6443"
  // PEM: the CA the server's certificate must chain to; "": the system's bundle.
  std::string ca_pem;
  bool insecure_skip_tls_verify = false;  // only when the caller allowed it
  // PEM: a client certificate and its key, both or neither.
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string token;       // a bearer token...
  std::string token_file;  // ...or a file holding one, read for each request
  std::optional<ExecPlugin> exec;
  std::string namespace_name = "default";
  // For messages: "context \"kind-dev\" of /root/.kube/config", "the pod's service account".
  std::string origin;
};

}  // namespace agentbox::kubernetes
