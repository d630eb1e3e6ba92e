#include "app/backends.h"

#include "docker/docker_backend.h"
#include "native/native_backend.h"

namespace agentbox {

BackendList BuiltInBackends() {
  return {{"native", MakeNativeBackend}, {"docker", MakeDockerBackend}};
}

}  // namespace agentbox
