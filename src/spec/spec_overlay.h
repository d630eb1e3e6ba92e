// SpecOverlay: the options one source (a policy file, the flags) sets, to be laid over defaults.
//
// Sources are merged in a fixed order: SandboxSpec defaults, then the policy file, then the flags
// (MergeSpec). Every value is validated when it is set, with the same rules for every source, so
// a SandboxSpec built from overlays is always in range.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "spec/sandbox_spec.h"

namespace agentbox {

struct SpecOverlay {
  std::optional<BackendKind> backend;
  std::optional<std::string> image;
  std::optional<std::string> runtime;
  std::optional<std::string> workspace;
  std::optional<std::string> rootfs;
  std::optional<double> timeout_seconds;
  std::optional<uint64_t> memory_bytes;
  std::optional<uint64_t> pids;
  std::optional<double> cpus;
  std::optional<uint64_t> output_bytes;
  std::optional<uint64_t> disk_bytes;
  std::vector<std::pair<std::string, std::string>> env;  // in order; a repeated KEY replaces
  std::optional<std::string> cwd;
  std::optional<bool> pass_stdin;
  std::optional<uint64_t> tmp_bytes;
  std::optional<uint64_t> shm_bytes;
  std::optional<uint64_t> open_files;
  std::optional<double> ttl_seconds;               // 0: none
  std::optional<double> idle_timeout_seconds;      // 0: none
  std::optional<bool> allow_root_owned_workspace;  // a flag only: no policy key
  std::optional<bool> no_pull;                     // a flag only: no policy key
  // --kubeconfig, --context, --namespace: flags only, no policy keys.
  std::optional<std::string> kubeconfig;
  std::optional<std::string> kube_context;
  std::optional<std::string> kube_namespace;
  // Patterns in canonical form, in order, without repeats; a later source adds to an earlier.
  std::vector<std::string> allow_hosts;
  std::optional<uint64_t> egress_connections;
  std::optional<uint64_t> egress_bytes;
  std::optional<bool> session_log;
  std::optional<uint64_t> max_snapshots;
  std::optional<double> clock_start_seconds;
  std::optional<uint64_t> random_seed;
};

// How a key's value is written. The policy loader accepts a JSON number for the numeric kinds
// and a string (in the flag syntax) for every kind but kBool and kEnv.
// kHostList: a JSON array of host patterns; in the flag syntax, one pattern per use.
enum class FieldKind { kString, kSize, kCount, kDuration, kDecimal, kBool, kEnv, kHostList };

struct SpecField {
  std::string_view key;  // policy file key, e.g. "output_limit"
  FieldKind kind;
};

// Every key, in the order of docs/contract.md §1 followed by the extra SandboxSpec fields.
std::span<const SpecField> SpecFields();
// The field named `key`, or nullptr.
const SpecField* FindSpecField(std::string_view key);
// "backend, image, ...": for "unknown key" messages.
std::string SpecFieldList();

// Parses `text` in the flag syntax of `key`'s kind ("512M", "1.5", "KEY=VALUE", ...), checks its
// range and stores it. On failure `overlay` is unchanged and the message is the reason only,
// without the key: callers prefix "--memory: " or "policy.json: key \"memory\": ".
Status SetFieldFromText(std::string_view key, std::string_view text, SpecOverlay* overlay);

// Typed setters, for sources that parse the syntax themselves (JSON numbers). Same range checks
// and failure behaviour as SetFieldFromText. `key` must be of the matching kind.
Status SetSizeField(std::string_view key, uint64_t bytes, SpecOverlay* overlay);
Status SetCountField(std::string_view key, uint64_t count, SpecOverlay* overlay);
Status SetDurationField(std::string_view key, double seconds, SpecOverlay* overlay);
Status SetDecimalField(std::string_view key, double value, SpecOverlay* overlay);
Status SetStringField(std::string_view key, std::string_view value, SpecOverlay* overlay);
Status SetBoolField(std::string_view key, bool value, SpecOverlay* overlay);
// Adds one allow_hosts pattern (spec/host_pattern.h), canonicalized; a repeat is dropped.
Status AddAllowHost(std::string_view pattern, SpecOverlay* overlay);
// Adds one environment variable: name non-empty, no '=' and no NUL; value no NUL.
Status AddEnvVar(std::string_view name, std::string_view value, SpecOverlay* overlay);

// kInvalidArgument naming the key when a string of `overlay` (a path, the image, an env name or
// value) is not valid UTF-8: such a spec cannot be stored or shown as a policy file (JSON).
// Flags may hold any bytes; `create` checks them with this, `run` stores nothing and needs not.
Status RequireUtf8Strings(const SpecOverlay& overlay);

// Lays `overlay` over `spec`: set fields replace, env entries replace the same name or append.
void ApplyOverlay(const SpecOverlay& overlay, SandboxSpec* spec);

// Defaults, then the policy file, then the flags: flags always win.
SandboxSpec MergeSpec(const SpecOverlay& policy, const SpecOverlay& flags);

}  // namespace agentbox
