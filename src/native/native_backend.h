// NativeBackend: persistent sandboxes made by our own namespaces, cgroups and seccomp code.
#pragma once

#include <memory>

#include "core/backend.h"

namespace agentbox {

std::unique_ptr<Backend> MakeNativeBackend();

}  // namespace agentbox
