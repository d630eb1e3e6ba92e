// The comparison half of the isolation self-report (see core/verify.h).
#include "core/verify.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "base/utf8.h"
#include "sys/mountinfo.h"

namespace agentbox {
namespace {

const std::string kMissing = "missing";

const std::string& Section(const std::map<std::string, std::string>& probe, const char* name) {
  static const std::string empty;
  auto it = probe.find(name);
  return it == probe.end() ? empty : it->second;
}

VerifyCheck Check(std::string name, std::string want, std::string got, bool ok) {
  return {std::move(name), std::move(want), std::move(got), ok};
}

// The numbers Linux gives its initial namespaces (include/uapi/linux/nsfs.h), the same on every
// machine: a pod's namespace is told from its node's own without seeing the node. mnt and net
// have them only since Linux 6.18 (before, numbered like any other namespace). Two a pod may share
// with its node without anything agentbox asked for being amiss (no pod field makes one): those
// are then not applicable, with why; sharing any other is a failure (hostPID, hostIPC,
// hostNetwork).
struct InitialNamespace {
  const char* ns;
  uint32_t inum;
  bool since_6_18;
  const char* when_shared;  // the reason it is not applicable; nullptr: a failure
};
constexpr InitialNamespace kInitialNamespaces[] = {
    {"user", 0xEFFFFFFD, false,
     "the pod shares its node's user namespace, as every pod without hostUsers: false (which "
     "agentbox does not set): uid and uid_map check that its user is not root there"},
    {"mnt", 0xEFFFFFF8, true, nullptr},
    {"pid", 0xEFFFFFFC, false, nullptr},
    {"ipc", 0xEFFFFFFF, false, nullptr},
    {"uts", 0xEFFFFFFE, false, nullptr},
    {"net", 0xEFFFFFF9, true, nullptr},
    {"cgroup", 0xEFFFFFFB, false,
     "the pod shares its node's cgroup namespace: the runtime decides (its own on cgroup v2 "
     "nodes, the node's on v1), no pod field asks; memory_limit and pids_limit check the pod's "
     "cgroup"},
};

// "6.18.44-fc" -> at least 6.18; false when unreadable.
bool KernelAtLeast618(std::string_view release) {
  int major = 0, minor = 0;
  const char* end = release.data() + release.size();
  auto [p, ec] = std::from_chars(release.data(), end, major);
  if (ec != std::errc() || p == end || *p != '.') return false;
  if (std::from_chars(p + 1, end, minor).ec != std::errc()) return false;
  return major > 6 || (major == 6 && minor >= 18);
}

// A pod's namespace against its node's initial one (see kInitialNamespaces).
VerifyCheck NodeNamespaceCheck(const InitialNamespace& ns, const std::string* got,
                               std::string_view release) {
  const std::string initial = std::string(ns.ns) + ":[" + std::to_string(ns.inum) + "]";
  VerifyCheck check = Check(std::string("ns_") + ns.ns, "not " + initial + " (the node's own)",
                            got == nullptr ? kMissing : *got, got != nullptr && *got != initial);
  if (got == nullptr) return check;
  if (*got == initial && ns.when_shared != nullptr) {
    check.not_applicable = ns.when_shared;
  } else if (check.ok && ns.since_6_18 && !KernelAtLeast618(release)) {
    check.not_applicable =
        "the node's kernel (" +
        (release.empty() ? std::string("release unknown") : std::string(release)) +
        ") numbers its own " + ns.ns +
        " namespace like any other (fixed only since Linux 6.18): nothing to "
        "compare with from inside the pod";
  }
  return check;
}

void CheckNamespaces(const std::map<std::string, std::string>& probe, const VerifyExpectations& w,
                     std::vector<VerifyCheck>& out) {
  std::map<std::string, std::string> inside = ParseNamespaceLinks(Section(probe, "ns"));
  if (w.remote_node) {
    std::string_view release = Section(probe, "osrelease");
    while (!release.empty() && (release.back() == '\n' || release.back() == ' ')) {
      release.remove_suffix(1);
    }
    for (const InitialNamespace& ns : kInitialNamespaces) {
      auto got = inside.find(ns.ns);
      out.push_back(NodeNamespaceCheck(ns, got == inside.end() ? nullptr : &got->second, release));
    }
    return;
  }
  for (const char* ns : kVerifiedNamespaces) {
    auto host = w.host_namespaces.find(ns);
    auto got = inside.find(ns);
    std::string want = "not " + (host == w.host_namespaces.end() ? "the host's" : host->second);
    bool ok = got != inside.end() && host != w.host_namespaces.end() && got->second != host->second;
    out.push_back(
        Check(std::string("ns_") + ns, want, got == inside.end() ? kMissing : got->second, ok));
  }
}

// "Uid:\t1000\t1000\t1000\t1000": real, effective, saved and filesystem ids, all `want`.
VerifyCheck IdsCheck(const std::string& status, const char* key, uint32_t want) {
  auto line = StatusField(status, key);
  if (!line) return Check(key[0] == 'U' ? "uid" : "gid", std::to_string(want), kMissing, false);
  bool ok = true;
  int count = 0;
  std::string got;  // the four ids, space-separated
  std::string_view rest = *line;
  while (!rest.empty()) {
    size_t end = rest.find_first_of(" \t");
    std::string_view id = rest.substr(0, end);
    if (!id.empty()) {
      ok &= id == std::to_string(want);
      got += (count++ == 0 ? "" : " ") + std::string(id);
    }
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
  }
  return Check(key[0] == 'U' ? "uid" : "gid", std::to_string(want), got, ok && count == 4);
}

// The sandbox's id must not be root on the host: a root-owned host file would be its own.
// The sandbox's id maps to an outside id that is not 0 and, for uids, no account's.
VerifyCheck MapCheck(const std::string& id_map, const char* name, uint32_t inside,
                     const std::vector<uint32_t>& accounts) {
  std::string want =
      std::to_string(inside) + " -> not 0" + (accounts.empty() ? "" : ", no account");
  if (id_map.empty()) return Check(name, want, kMissing, false);
  auto outside = MapToOutside(id_map, inside);
  std::string got =
      std::to_string(inside) + " -> " + (outside ? std::to_string(*outside) : "unmapped");
  bool ok = outside && *outside != 0 &&
            std::find(accounts.begin(), accounts.end(), *outside) == accounts.end();
  return Check(name, want, got, ok);
}

VerifyCheck ZeroCapsCheck(const std::string& status, const char* key) {
  const std::string want = "0000000000000000";
  auto value = StatusField(status, key);
  if (!value) return Check(key, want, kMissing, false);
  uint64_t bits = 1;
  auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), bits, 16);
  bool parsed = !value->empty() && ec == std::errc() && end == value->data() + value->size();
  return Check(key, want, *value, parsed && bits == 0);
}

VerifyCheck FieldCheck(const std::string& status, const char* key, const std::string& want) {
  auto value = StatusField(status, key);
  return Check(key, want, value.value_or(kMissing), value == want);
}

// The mount on top at `mount_point` (the last one listed) and whether it is read-only.
VerifyCheck MountCheck(const std::vector<MountInfoEntry>& mounts, const char* name,
                       const char* mount_point, bool want_readonly) {
  const std::string want = want_readonly ? "ro" : "rw";
  const MountInfoEntry* top = nullptr;
  for (const MountInfoEntry& m : mounts) {
    if (m.mount_point == mount_point) top = &m;
  }
  if (top == nullptr) return Check(name, want, kMissing, false);
  bool readonly = false;
  for (const std::string& option : top->mount_options) readonly |= option == "ro";
  const std::string got = readonly ? "ro" : "rw";
  return Check(name, want, got, got == want);
}

// No network: only lo, and in a pod also the pod's one interface (its agent is reached through
// it; what may pass there is the NetworkPolicy's, checked by the backend).
VerifyCheck NetworkCheck(const std::string& net_dev, bool network, bool pod) {
  std::vector<std::string> names = ParseNetDevNames(net_dev);
  std::string got;
  for (const std::string& n : names) got += (got.empty() ? "" : ",") + n;
  if (got.empty()) got = kMissing;
  if (network) return Check("network", "lo and more", got, names.size() > 1);
  bool has_lo = std::find(names.begin(), names.end(), "lo") != names.end();
  if (pod) return Check("network", "lo and one pod interface", got, has_lo && names.size() == 2);
  return Check("network", "lo", got, got == "lo");
}

std::string LimitText(uint64_t value) {
  if (value == 0) return "unknown";
  if (value == UINT64_MAX) return "max";
  return std::to_string(value);
}

// The kernel keeps memory limits in whole pages, so it reads back rounded down to a page
// (at most 64 KiB on any Linux page size).
VerifyCheck MemoryLimitCheck(uint64_t want, uint64_t got) {
  constexpr uint64_t kMaxPageRounding = 64 * 1024;
  bool ok = got != 0 && got <= want && want - got < kMaxPageRounding;
  return Check("memory_limit", std::to_string(want), LimitText(got), ok);
}

}  // namespace

std::vector<VerifyCheck> CompareIsolation(const std::map<std::string, std::string>& probe,
                                          const VerifyExpectations& want) {
  std::vector<VerifyCheck> out;
  CheckNamespaces(probe, want, out);
  const std::string& status = Section(probe, "status");
  out.push_back(IdsCheck(status, "Uid", want.uid));
  out.push_back(IdsCheck(status, "Gid", want.gid));
  // A node's accounts are not agentbox's to read: there only "not root" is checked.
  out.push_back(MapCheck(Section(probe, "uid_map"), "uid_map", want.uid,
                         want.remote_node ? std::vector<uint32_t>{} : want.host_account_uids));
  out.push_back(MapCheck(Section(probe, "gid_map"), "gid_map", want.gid, {}));
  for (const char* caps : {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"}) {
    out.push_back(ZeroCapsCheck(status, caps));
  }
  out.push_back(FieldCheck(status, "NoNewPrivs", "1"));
  out.push_back(FieldCheck(status, "Seccomp", "2"));  // 2: a filter, not strict mode or none
  std::vector<MountInfoEntry> mounts = ParseMountInfo(Section(probe, "mountinfo"));
  out.push_back(MountCheck(mounts, "root_readonly", "/", true));
  out.push_back(MountCheck(mounts, "workspace_writable", "/workspace", false));
  out.push_back(NetworkCheck(Section(probe, "net_dev"), want.network, want.remote_node));
  out.push_back(MemoryLimitCheck(want.memory_limit_bytes, want.got_memory_limit_bytes));
  out.push_back(Check("pids_limit", std::to_string(want.pids_limit), LimitText(want.got_pids_limit),
                      want.got_pids_limit == want.pids_limit));
  return out;
}

bool VerifyReport::ok() const {
  bool any = false;
  for (const VerifyCheck& c : checks) {
    if (!c.not_applicable.empty()) continue;
    if (!c.ok) return false;
    any = true;
  }
  return any;
}

std::string VerifyReportJson(const VerifyReport& report) {
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const VerifyCheck& c : report.checks) {
    // The probe's text is the sandbox's: never let its bytes break the JSON.
    nlohmann::ordered_json check = {
        {"name", c.name}, {"want", SanitizeUtf8(c.want)}, {"got", SanitizeUtf8(c.got)}};
    if (c.not_applicable.empty()) {
      check["ok"] = c.ok;
    } else {
      check["ok"] = nullptr;
      check["reason"] = c.not_applicable;
    }
    checks.push_back(std::move(check));
  }
  nlohmann::ordered_json j = {{"id", report.id}, {"ok", report.ok()}, {"checks", checks}};
  return j.dump();
}

std::vector<std::string> VerifyFailureLines(const VerifyReport& report) {
  std::vector<std::string> lines;
  for (const VerifyCheck& c : report.checks) {
    if (!c.ok && c.not_applicable.empty())
      lines.push_back("verify: " + c.name + ": want " + c.want + ", got " + c.got);
  }
  return lines;
}

}  // namespace agentbox
