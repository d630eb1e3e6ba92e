// SandboxSpec: everything a user can ask of a sandbox, with the documented defaults.
//
// Pure data. Defaults here ARE the strict default policy, docs/contract.md §2; docs/policy.md lists
// every field with the same default and what it protects against. Flags and policy files only
// ever produce a SandboxSpec; backends only ever consume one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentbox {

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * kKiB;
inline constexpr uint64_t kGiB = 1024 * kMiB;
// --disk-limit none.
inline constexpr uint64_t kNoDiskLimit = UINT64_MAX;

// Hard limits on one command (run) or one exec.
struct Limits {
  double timeout_seconds = 60;         // wall clock; exceeded -> exit 124, reason "timeout"
  uint64_t memory_bytes = 512 * kMiB;  // RAM, no swap; exceeded -> allocation refused or OOM kill
  uint64_t pids = 256;                 // processes + threads alive at once
  double cpus = 1;                     // CPU share (cgroup quota), fractions allowed
  uint64_t output_bytes = 1 * kMiB;    // bytes kept per stream; the rest is drained and dropped
  // Bytes the command (run) or the sandbox over its life (create) may add to /workspace,
  // enforced by a quota at the write; kNoDiskLimit (UINT64_MAX) for "none".
  uint64_t disk_bytes = 1 * kGiB;
  // Egress through the proxy (allow_hosts): connections one exec may hold open at once, and
  // bytes it may move through them, both ways together; past either it is refused or cut.
  uint64_t egress_connections = 64;
  uint64_t egress_bytes = 1 * kGiB;
};

// Which backend makes the sandbox (--backend). Flags, policy files, records and results spell
// it "native", "docker" or "kubernetes" (BackendName).
enum class BackendKind { kNative, kDocker, kKubernetes };
inline constexpr BackendKind kAllBackends[] = {BackendKind::kNative, BackendKind::kDocker,
                                               BackendKind::kKubernetes};
inline const char* BackendName(BackendKind kind) {
  switch (kind) {
    case BackendKind::kDocker:
      return "docker";
    case BackendKind::kKubernetes:
      return "kubernetes";
    case BackendKind::kNative:
      break;
  }
  return "native";
}
// The kind a name spells; nullopt for any other string.
inline std::optional<BackendKind> BackendFromName(std::string_view name) {
  for (BackendKind kind : kAllBackends) {
    if (name == BackendName(kind)) return kind;
  }
  return std::nullopt;
}

// Where the kubernetes backend makes the sandbox's pod (--kubeconfig, --context, --namespace):
// flags and the operator's environment only, never policy keys (they name host files and the
// operator's cluster). "" for each: $KUBECONFIG or ~/.kube/config, its current context, that
// context's namespace; in a pod without a kubeconfig, the pod's service account and namespace.
struct KubernetesTarget {
  std::string kubeconfig;
  std::string context;
  std::string namespace_name;
  bool operator==(const KubernetesTarget&) const = default;
};

// The sandbox's strict default user inside: every command, exec, file operation and terminal
// runs as it unless an image names a user of its own (SandboxUser).
inline constexpr uint32_t kSandboxUid = 1000;
inline constexpr uint32_t kSandboxGid = 1000;

// Who commands run as inside: an image's non-root User (policy/image_user.h), else the strict
// default. Never 0, never above 65534. Only the number inside changes: on the host it is the
// same unprivileged id the default user would be (docs/policy.md, "Images").
struct SandboxUser {
  uint32_t uid = kSandboxUid;
  uint32_t gid = kSandboxGid;
  bool operator==(const SandboxUser&) const = default;
};

// What the sandbox looks like. Never loosened implicitly: every field is strict by default.
struct SandboxSpec {
  BackendKind backend = BackendKind::kNative;
  // The root's image: docker's container image; native: an image of the store (image/), used
  // only when `image_given` (else the host's system dirs or --rootfs).
  std::string image = "agentbox-test:latest";
  std::string
      runtime;  // docker backend only: an OCI runtime dockerd knows (runsc); "" = its default
  std::optional<std::string> workspace;  // host dir at /workspace; unset = private temp dir
  std::optional<std::string> rootfs;     // host dir used read-only as /; unset = host system dirs
  Limits limits;
  std::vector<std::pair<std::string, std::string>> env;  // added to the clean environment
  // Hosts the command may reach through agentbox's egress proxy (spec/host_pattern.h), in
  // canonical form; empty: no network at all (docs/contract.md §2).
  std::vector<std::string> allow_hosts;
  std::string cwd = "/workspace";   // working directory inside
  SandboxUser user;                 // from the image's User (native/image_root.h, docker)
  bool pass_stdin = false;          // false: stdin is /dev/null
  uint64_t tmp_bytes = 256 * kMiB;  // size cap of the private /tmp
  uint64_t shm_bytes = 64 * kMiB;   // size cap of the private /dev/shm
  uint64_t open_files = 1024;       // RLIMIT_NOFILE
  // A persistent sandbox's lifetime: removed, as `rm -f` would, this long after `create`;
  // 0 = no lifetime limit. (`run` is bounded by its timeout and ignores it.)
  double ttl_seconds = 0;
  // ...and this long after its last use (an exec or a file operation ending): removed the same
  // way once nothing of it has run for that long; 0 = never for being idle.
  double idle_timeout_seconds = 0;
  // The session log (core/session_log.h): every exec and file operation of a persistent
  // sandbox appended to its log with the policy, image and workspace digests. false: no log.
  bool session_log = true;
  // Snapshots a persistent sandbox may hold at once (`agentbox snapshot`); 0: none. Each pins at
  // most what the workspace held when it was taken (docs/policy.md "max_snapshots").
  uint64_t max_snapshots = 16;
  // Deterministic knobs (docs/policy.md "Determinism"). clock_start: CLOCK_MONOTONIC and
  // CLOCK_BOOTTIME (uptime) read this many seconds when the sandbox starts, through a time
  // namespace whose offsets are fixed then; unset: the host's clocks.
  std::optional<double> clock_start_seconds;
  // random_seed: every command's getrandom(2) reads a stream of this seed, NOT cryptographic
  // (proc/getrandom_watch.h); unset: the kernel's randomness.
  std::optional<uint64_t> random_seed;
  // Set by a flag, a policy file or an API body rather than left at the built-in default: a
  // limit someone asked for is refused where it cannot be enforced, the default reported.
  bool disk_limit_explicit = false;
  bool pids_limit_explicit = false;  // the same for pids (refused on a pod that cannot hold it)
  // Set by a flag, a policy file or an API body: `image` was asked for (native uses an image
  // only then), `cwd` was (an image's WorkingDir yields to it).
  bool image_given = false;
  bool cwd_given = false;
  // --allow-root-owned-workspace (the CLI only, never a policy key): a non-empty workspace
  // owned by root is used, its root-owned files then the command's to read and write.
  bool allow_root_owned_workspace = false;
  // --no-pull (the CLI only, never a policy key; serve's creates pass it): an image the docker
  // daemon lacks is kNotFound, never pulled. (The native backend pulls only with --pull.)
  bool no_pull = false;
  // --kubeconfig, --context, --namespace (the CLI only): the kubernetes backend's cluster.
  KubernetesTarget kube;
};

// The clean environment every command starts from (docs/contract.md §2), before SandboxSpec::env.
inline constexpr const char* kSandboxPath =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
// What uid 0 and uid 1000 inside a native sandbox are on the host: unprivileged, above the
// subuid ranges useradd hands out, so no account has them (docs/security.md). (The docker
// backend has its own, docker/host_ids.h.)
inline constexpr uint32_t kSandboxHostRootId = 3'900'000'000u;
inline constexpr uint32_t kSandboxHostUserId = 3'900'001'000u;
inline constexpr const char* kSandboxHostname = "sandbox";
// Every sandbox's /etc/resolv.conf: its only resolver is the DNS catcher on its own loopback
// (proc/dns_catcher.h), which answers REFUSED and names the host in the result. Named, not left
// to the C library's default: resolvers of their own (Go's, c-ares, busybox's) read it too.
inline constexpr const char* kSandboxResolvConf = "nameserver 127.0.0.1\n";
inline constexpr const char* kWorkspaceDir = "/workspace";

}  // namespace agentbox
