#include "app/backends.h"

#include "app/self_exec.h"
#include "backend_common/pool_workspace_storage.h"
#include "docker/docker_backend.h"
#include "kubernetes/kubernetes_backend.h"
#include "native/native_backend.h"

namespace agentbox {

BackendList BuiltInBackends() {
  return {{BackendKind::kNative, MakeNativeBackend},
          {BackendKind::kDocker, MakeDockerBackend},
          {BackendKind::kKubernetes, MakeKubernetesBackend, /*adopts=*/true}};
}

SandboxManager MakeSandboxManager(StateStore store) {
  const std::string root = store.root();
  SandboxManager manager(std::move(store), BuiltInBackends());
  manager.set_workspace_storage(MakePoolWorkspaceStorage(root));
  manager.set_refill([](const std::string& key) {
    SpawnSelfDetached({"pool", "fill", "--key", key});
  });
  return manager;
}

StatusOr<SandboxManager> OpenSandboxManager() {
  AB_ASSIGN_OR_RETURN(StateStore store, StateStore::Open());
  return MakeSandboxManager(std::move(store));
}

}  // namespace agentbox
