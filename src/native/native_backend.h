// NativeBackend: persistent sandboxes made by our own namespaces, cgroups and seccomp code.
#pragma once

#include <memory>

#include "core/backend.h"
#include "native/cgroup.h"

namespace agentbox {

std::unique_ptr<Backend> MakeNativeBackend();

// A cgroup's counters as the Backend interface reports them (native and docker cgroups alike).
ResourceSnapshot ToResourceSnapshot(const CgroupStats& stats);

}  // namespace agentbox
