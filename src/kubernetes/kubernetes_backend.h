// KubernetesBackend: persistent sandboxes as pods of a Kubernetes cluster (issue 20).
//
// One pod per sandbox, strict by construction (kubernetes/pod_manifest.h), beside its own
// Secret (the agent's token, never shared) and a NetworkPolicy that admits only agentbox. The
// agent is the pod's PID 1 and listens on TCP; the host reaches it at "tcp:POD_IP:7070" with
// the token, so everything inside the sandbox (exec, files, processes) goes through the same
// agent protocol as on native and docker. The workspace is the pod's emptyDir: there is no host
// path behind it (record.workspace is ""), so what needs one (snapshots, the session log's
// digests) says it is not available. Which cluster: kubernetes/cluster_target.h.
#pragma once

#include <memory>
#include <string>

#include "core/backend.h"

namespace agentbox {

// state_root: the state dir whose sandboxes this backend serves (hashed with the host name into
// the objects' agentbox.dev/owner label unless $AGENTBOX_KUBE_OWNER names one, which serve's
// replicas share): `gc` and adoption (Backend::Adoptable: the pods carry the records,
// kubernetes/pod_record.h) see only that owner's sandboxes. With $AGENTBOX_KUBE_SANDBOX_CLAIMS=1
// sandboxes are made through agent-sandbox's SandboxClaim instead (kubernetes/claim_sandbox.h).
std::unique_ptr<Backend> MakeKubernetesBackend(const std::string& state_root);

}  // namespace agentbox
