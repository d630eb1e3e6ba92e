// What this binary is: its version, the commit it was built from and the build type. Defined in
// a file the build writes (cmake/build_info.cmake), rewritten only when one of them changes.
#pragma once

namespace agentbox {

extern const char* const kAgentboxVersion;    // "0.1.0": CMakeLists.txt's project VERSION
extern const char* const kAgentboxCommit;     // "f785f78c1a2b" (+ "-dirty"), or "unknown"
extern const char* const kAgentboxBuildType;  // "RelWithDebInfo", "Release", ...

}  // namespace agentbox
