// SeccompProgram: the strict seccomp filter of docs/contract.md §2 as classic BPF, compiled once.
//
// Pure: no OS headers. BpfInstruction has the layout of struct sock_filter, so the native
// backend installs instructions().data() as-is with seccomp(SECCOMP_SET_MODE_FILTER).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace agentbox {

struct BpfInstruction {
  uint16_t code;
  uint8_t jt;
  uint8_t jf;
  uint32_t k;
};

// The default filter for this build's architecture. Compiled at most once per process (or at
// build time); cheap to call on every run.
const std::vector<BpfInstruction>& DefaultSeccompProgram();

}  // namespace agentbox
