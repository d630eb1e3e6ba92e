// A tiny classic-BPF interpreter for seccomp programs, for tests only.
//
// Covers what seccomp_check_filter accepts (LD/LDX/ST/STX, ALU, JMP, RET, TAX/TXA) so a test can
// ask "what does the filter decide for this syscall?" without installing it. It fails loudly
// (nullopt) on anything it does not know rather than guessing.
#pragma once

#include <linux/filter.h>
#include <linux/seccomp.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

#include "policy/seccomp_program.h"

namespace agentbox::bpf_test {

struct BpfVerdict {
  uint32_t action = 0;  // the RET value: SECCOMP_RET_ACTION_FULL | SECCOMP_RET_DATA
  int steps = 0;        // instructions executed, a proxy for the filter's per-syscall cost
};

inline std::optional<uint32_t> BpfAlu(uint16_t op, uint32_t a, uint32_t operand) {
  switch (op) {
    case BPF_ADD:
      return a + operand;
    case BPF_SUB:
      return a - operand;
    case BPF_MUL:
      return a * operand;
    case BPF_DIV:
      return operand == 0 ? std::nullopt : std::optional<uint32_t>(a / operand);
    case BPF_MOD:
      return operand == 0 ? std::nullopt : std::optional<uint32_t>(a % operand);
    case BPF_OR:
      return a | operand;
    case BPF_AND:
      return a & operand;
    case BPF_XOR:
      return a ^ operand;
    case BPF_LSH:
      return operand >= 32 ? std::nullopt : std::optional<uint32_t>(a << operand);
    case BPF_RSH:
      return operand >= 32 ? std::nullopt : std::optional<uint32_t>(a >> operand);
    case BPF_NEG:
      return 0u - a;
    default:
      return std::nullopt;
  }
}

inline std::optional<bool> BpfCondition(uint16_t op, uint32_t a, uint32_t operand) {
  switch (op) {
    case BPF_JEQ:
      return a == operand;
    case BPF_JGT:
      return a > operand;
    case BPF_JGE:
      return a >= operand;
    case BPF_JSET:
      return (a & operand) != 0;
    default:
      return std::nullopt;
  }
}

// Runs `program` over `data` as the kernel would. nullopt: unknown opcode, a jump or scratch
// index out of range, an unaligned or out-of-bounds load, or falling off the end.
inline std::optional<BpfVerdict> RunSeccompBpf(std::span<const BpfInstruction> program,
                                               const seccomp_data& data) {
  uint32_t a = 0, x = 0;
  std::array<uint32_t, BPF_MEMWORDS> mem{};
  BpfVerdict verdict;
  for (size_t pc = 0; pc < program.size(); ++pc) {
    const BpfInstruction& in = program[pc];
    ++verdict.steps;
    const uint32_t src = BPF_SRC(in.code) == BPF_X ? x : in.k;
    switch (BPF_CLASS(in.code)) {
      case BPF_LD:
        if (in.code == (BPF_LD | BPF_W | BPF_ABS)) {
          if (in.k % 4 != 0 || in.k + 4 > sizeof(data)) return std::nullopt;
          std::memcpy(&a, reinterpret_cast<const char*>(&data) + in.k, 4);
        } else if (in.code == (BPF_LD | BPF_W | BPF_LEN)) {
          a = sizeof(data);
        } else if (in.code == (BPF_LD | BPF_IMM)) {
          a = in.k;
        } else if (in.code == (BPF_LD | BPF_MEM) && in.k < BPF_MEMWORDS) {
          a = mem[in.k];
        } else {
          return std::nullopt;
        }
        break;
      case BPF_LDX:
        if (in.code == (BPF_LDX | BPF_IMM)) {
          x = in.k;
        } else if (in.code == (BPF_LDX | BPF_MEM) && in.k < BPF_MEMWORDS) {
          x = mem[in.k];
        } else {
          return std::nullopt;
        }
        break;
      case BPF_ST:
      case BPF_STX:
        if (in.k >= BPF_MEMWORDS) return std::nullopt;
        mem[in.k] = BPF_CLASS(in.code) == BPF_ST ? a : x;
        break;
      case BPF_ALU: {
        const std::optional<uint32_t> r = BpfAlu(BPF_OP(in.code), a, src);
        if (!r) return std::nullopt;
        a = *r;
        break;
      }
      case BPF_JMP: {
        if (BPF_OP(in.code) == BPF_JA) {
          pc += in.k;
        } else {
          const std::optional<bool> taken = BpfCondition(BPF_OP(in.code), a, src);
          if (!taken) return std::nullopt;
          pc += *taken ? in.jt : in.jf;
        }
        if (pc + 1 >= program.size()) return std::nullopt;
        break;
      }
      case BPF_RET:
        if (BPF_RVAL(in.code) == BPF_K) {
          verdict.action = in.k;
        } else if (BPF_RVAL(in.code) == BPF_A) {
          verdict.action = a;
        } else {
          return std::nullopt;
        }
        return verdict;
      case BPF_MISC:
        if (BPF_MISCOP(in.code) == BPF_TAX) {
          x = a;
        } else if (BPF_MISCOP(in.code) == BPF_TXA) {
          a = x;
        } else {
          return std::nullopt;
        }
        break;
      default:
        return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace agentbox::bpf_test
