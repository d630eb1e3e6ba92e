// The isolation self-report of `agentbox inspect --verify` and GET /v1/sandboxes/{id}/verify.
//
// A probe runs INSIDE the sandbox through the normal exec path, so it sees exactly what a
// command sees, on every backend: its /proc/self/status, id maps, mountinfo, network devices
// and namespace links, printed with nothing but sh, cat and ls (present on the host's /usr and
// in a busybox image alike). The host side, here, takes that text apart and compares each fact
// with what the policy promises (docs/contract.md §2) and with the host's own namespaces and cgroup
// limits. Pure: parsing and comparison are unit-tested with sample /proc texts.
//
// A pod (kubernetes) runs on a node's kernel, not agentbox's: there a namespace is compared with
// the node's initial one, which the kernel numbers the same on every machine (mnt and net only
// since Linux 6.18), and a check that has nothing true to compare with says so (not applicable,
// with the reason) instead of passing unchecked or failing for nothing.
//
// What it proves and what not: it catches a box that was built wrong (a missing namespace, a
// capability left over, a writable root, a cgroup limit not applied). It cannot catch a box
// whose kernel view lies, e.g. a compromised sandbox answering the probe with made-up text;
// the probe's output is the sandbox's own word, checked for consistency only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentbox {

// The namespaces whose /proc/self/ns links must differ from the host's.
inline constexpr const char* kVerifiedNamespaces[] = {"user", "mnt", "pid",   "ipc",
                                                      "uts",  "net", "cgroup"};

// argv of the probe: /bin/sh -c '...' printing each section after a marker line.
std::vector<std::string> VerifyProbeArgv();

// The probe's stdout split into sections: "status", "uid_map", "gid_map", "mountinfo",
// "net_dev", "ns", "osrelease". A section the probe could not print is absent or empty.
std::map<std::string, std::string> SplitProbeOutput(std::string_view text);

// ---- parsers of /proc texts (pure) ---------------------------------------------------------

// The value of "Key:\tvalue" in /proc/PID/status, trimmed; nullopt when absent.
std::optional<std::string> StatusField(std::string_view status, std::string_view key);

// `ls -l /proc/self/ns/` (coreutils or busybox) -> {"user": "user:[4026531837]", ...}.
std::map<std::string, std::string> ParseNamespaceLinks(std::string_view ls_output);

// The outside id that `inside` maps to in uid_map / gid_map text; nullopt when unmapped.
std::optional<uint64_t> MapToOutside(std::string_view id_map, uint64_t inside);

// Interface names of /proc/net/dev, sorted.
std::vector<std::string> ParseNetDevNames(std::string_view net_dev);

// ---- comparison ----------------------------------------------------------------------------

struct VerifyCheck {
  std::string name;  // "ns_user", "uid", "CapEff", "root_readonly", "memory_limit", ...
  std::string want;
  std::string got;
  bool ok = false;
  // Why this check proves nothing on this box ("" when it applies): then `ok` is meaningless,
  // the JSON says "ok": null with this reason, and the report's verdict leaves it out.
  std::string not_applicable;
};

// Everything the comparison needs besides the probe's text.
struct VerifyExpectations {
  std::map<std::string, std::string> host_namespaces;  // the agentbox process's own links
  // uids of the host's accounts (its /etc/passwd): the sandbox user must map to none.
  std::vector<uint32_t> host_account_uids;
  // The box runs on another kernel than agentbox's (a pod on a node): host_namespaces and
  // host_account_uids mean nothing there; namespaces are compared with the kernel's initial ones
  // and the network may hold the pod's one interface besides lo.
  bool remote_node = false;
  uint32_t uid = 1000;  // the sandbox user: 1000, or an image's (SandboxUser)
  uint32_t gid = 1000;
  bool network = false;                 // false: only loopback may exist
  uint64_t memory_limit_bytes = 0;      // the policy's
  uint64_t pids_limit = 0;              // the policy's
  uint64_t got_memory_limit_bytes = 0;  // the backend's reading; 0 unknown, UINT64_MAX none
  uint64_t got_pids_limit = 0;
};

// One check per fact, in a fixed order; a fact the probe did not print fails with got "missing".
std::vector<VerifyCheck> CompareIsolation(const std::map<std::string, std::string>& probe,
                                          const VerifyExpectations& want);

struct VerifyReport {
  std::string id;
  std::vector<VerifyCheck> checks;
  bool ok() const;  // some check applies, and every one that applies passed
};

// {"id":..,"ok":bool,"checks":[{"name","want","got","ok"}]}, one line; a check that does not
// apply has "ok": null and "reason".
std::string VerifyReportJson(const VerifyReport& report);

// "verify: CapEff: want 0000000000000000, got 00000000a80425fb" for each failed check.
std::vector<std::string> VerifyFailureLines(const VerifyReport& report);

}  // namespace agentbox
