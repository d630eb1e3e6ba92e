#include "app/backends.h"

#include "docker/docker_backend.h"
#include "native/native_backend.h"

namespace agentbox {

BackendList BuiltInBackends() {
  return {{BackendKind::kNative, MakeNativeBackend}, {BackendKind::kDocker, MakeDockerBackend}};
}

}  // namespace agentbox
