#include "core/verify.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace agentbox {
namespace {

// What the probe prints in a correctly built native sandbox (trimmed /proc texts).
constexpr const char* kStatus =
    "Name:\tcat\nUmask:\t0022\nState:\tR (running)\nTgid:\t7\nPid:\t7\nPPid:\t5\n"
    "Uid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nGroups:\t \n"
    "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n"
    "CapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\nNoNewPrivs:\t1\nSeccomp:\t2\n"
    "Seccomp_filters:\t1\n";
constexpr const char* kUidMap =
    "         0 3900000000          1\n      1000 3900001000          1\n";
constexpr const char* kMountInfo =
    "300 299 0:52 / / ro,nosuid,nodev,relatime - tmpfs tmpfs ro,size=16k,mode=755\n"
    "301 300 8:1 /usr /usr ro,nosuid,nodev,relatime master:1 - ext4 /dev/sda1 rw\n"
    "302 300 8:1 /srv/ws /workspace rw,nosuid,nodev,relatime - ext4 /dev/sda1 rw\n"
    "303 300 0:53 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n";
constexpr const char* kNetDev =
    "Inter-|   Receive                            |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets\n"
    "    lo:       0       0    0    0    0     0          0         0        0       0\n";
constexpr const char* kNsCoreutils =
    "total 0\n"
    "lrwxrwxrwx 1 1000 1000 0 Jan  1 00:00 cgroup -> cgroup:[4026532310]\n"
    "lrwxrwxrwx 1 1000 1000 0 Jan  1 00:00 ipc -> ipc:[4026532306]\n"
    "lrwxrwxrwx 1 1000 1000 0 Jan  1 00:00 mnt -> mnt:[4026532304]\n"
    "lrwxrwxrwx 1 1000 1000 0 Jan  1 00:00 net -> net:[4026532309]\n"
    "lrwxrwxrwx 1 1000 1000 0 Jan  1 00:00 pid -> pid:[4026532307]\n"
    "lrwxrwxrwx 1 1000 1000 0 Jan  1 00:00 pid_for_children -> pid:[4026532307]\n"
    "lrwxrwxrwx 1 1000 1000 0 Jan  1 00:00 user -> user:[4026532303]\n"
    "lrwxrwxrwx 1 1000 1000 0 Jan  1 00:00 uts -> uts:[4026532305]\n";

std::map<std::string, std::string> HostNamespaces() {
  return {{"user", "user:[4026531837]"},    {"mnt", "mnt:[4026531841]"},
          {"pid", "pid:[4026531836]"},      {"ipc", "ipc:[4026531839]"},
          {"uts", "uts:[4026531838]"},      {"net", "net:[4026531840]"},
          {"cgroup", "cgroup:[4026531835]"}};
}

std::map<std::string, std::string> GoodProbe() {
  return {{"status", kStatus},       {"uid_map", kUidMap}, {"gid_map", kUidMap},
          {"mountinfo", kMountInfo}, {"net_dev", kNetDev}, {"ns", kNsCoreutils}};
}

VerifyExpectations GoodExpectations() {
  VerifyExpectations w;
  w.host_namespaces = HostNamespaces();
  w.memory_limit_bytes = 512u << 20;
  w.pids_limit = 256;
  w.got_memory_limit_bytes = 512u << 20;
  w.got_pids_limit = 256;
  return w;
}

const VerifyCheck& Find(const std::vector<VerifyCheck>& checks, const std::string& name) {
  for (const VerifyCheck& c : checks) {
    if (c.name == name) return c;
  }
  static VerifyCheck none{"(absent)", "", "", false};
  ADD_FAILURE() << "no check named " << name;
  return none;
}

std::vector<std::string> Failed(const std::vector<VerifyCheck>& checks) {
  std::vector<std::string> names;
  for (const VerifyCheck& c : checks) {
    if (!c.ok) names.push_back(c.name);
  }
  return names;
}

TEST(VerifyTest, ProbeUsesOnlyShCatAndLs) {
  std::vector<std::string> argv = VerifyProbeArgv();
  ASSERT_EQ(argv.size(), 3u);
  EXPECT_EQ(argv[0], "/bin/sh");
  EXPECT_EQ(argv[1], "-c");
  for (const char* needed :
       {"cat /proc/self/status", "cat /proc/self/uid_map", "cat /proc/self/mountinfo",
        "cat /proc/net/dev", "ls -l /proc/self/ns/", "cat /proc/sys/kernel/osrelease"}) {
    EXPECT_NE(argv[2].find(needed), std::string::npos) << needed;
  }
}

TEST(VerifyTest, SplitsTheProbeOutputIntoSections) {
  auto sections = SplitProbeOutput(
      "junk before\n==agentbox-verify:status==\nUid:\t1\nGid:\t2\n==agentbox-verify:ns==\n"
      "==agentbox-verify:net_dev==\n lo: 0\n");
  EXPECT_EQ(sections["status"], "Uid:\t1\nGid:\t2\n");
  EXPECT_EQ(sections["ns"], "");
  EXPECT_EQ(sections["net_dev"], " lo: 0\n");
  EXPECT_EQ(sections.count("uid_map"), 0u);
}

TEST(VerifyTest, ParsesProcTexts) {
  EXPECT_EQ(StatusField(kStatus, "CapEff"), "0000000000000000");
  EXPECT_EQ(StatusField(kStatus, "Seccomp"), "2");  // not Seccomp_filters
  EXPECT_EQ(StatusField(kStatus, "Cap"), std::nullopt);
  EXPECT_EQ(MapToOutside(kUidMap, 1000), 3900001000u);
  EXPECT_EQ(MapToOutside(kUidMap, 0), 3900000000u);
  EXPECT_EQ(MapToOutside(kUidMap, 1), std::nullopt);
  EXPECT_EQ(MapToOutside("0 0 4294967295\n", 1000), 1000u);  // docker without a user namespace
  EXPECT_EQ(ParseNetDevNames(kNetDev), std::vector<std::string>{"lo"});
  auto links = ParseNamespaceLinks(kNsCoreutils);
  EXPECT_EQ(links["user"], "user:[4026532303]");
  EXPECT_EQ(links["pid"], "pid:[4026532307]");
  EXPECT_EQ(links.count("pid_for_children"), 0u);  // keyed by the link's target type
}

TEST(VerifyTest, ParsesBusyboxAndQuotedLs) {
  auto links = ParseNamespaceLinks(
      "lrwxrwxrwx    1 1000     1000             0 Jan  1 00:00 net -> net:[4026532309]\n"
      "lrwxrwxrwx 1 1000 1000 0 Jan  1 00:00 uts -> 'uts:[4026532305]'\n");
  EXPECT_EQ(links["net"], "net:[4026532309]");
  EXPECT_EQ(links["uts"], "uts:[4026532305]");
}

TEST(VerifyTest, AGoodSandboxPassesEveryCheck) {
  auto checks = CompareIsolation(GoodProbe(), GoodExpectations());
  EXPECT_EQ(Failed(checks), std::vector<std::string>{});
  EXPECT_EQ(checks.size(), 7u + 2 + 2 + 5 + 2 + 2 + 1 + 2);
  VerifyReport report{"abc", checks};
  EXPECT_TRUE(report.ok());
  EXPECT_TRUE(VerifyFailureLines(report).empty());
}

TEST(VerifyTest, TheSandboxUserIsNoAccountOnTheHost) {
  auto w = GoodExpectations();
  w.host_account_uids = {0, 1000, 3900001000u};
  auto checks = CompareIsolation(GoodProbe(), w);
  EXPECT_EQ(Failed(checks), std::vector<std::string>{"uid_map"});
  EXPECT_EQ(Find(checks, "uid_map").want, "1000 -> not 0, no account");
  w.host_account_uids = {0, 1000};
  EXPECT_EQ(Failed(CompareIsolation(GoodProbe(), w)), std::vector<std::string>{});
}

TEST(VerifyTest, ALeftoverCapabilityFails) {
  auto probe = GoodProbe();
  std::string status = kStatus;
  status.replace(status.find("CapEff:\t0000000000000000"), 24, "CapEff:\t00000000a80425fb");
  probe["status"] = status;
  auto checks = CompareIsolation(probe, GoodExpectations());
  EXPECT_EQ(Failed(checks), std::vector<std::string>{"CapEff"});
  EXPECT_EQ(Find(checks, "CapEff").got, "00000000a80425fb");
  EXPECT_EQ(Find(checks, "uid").got, "1000 1000 1000 1000");
  VerifyReport report{"abc", checks};
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(
      VerifyFailureLines(report),
      std::vector<std::string>{"verify: CapEff: want 0000000000000000, got 00000000a80425fb"});
}

TEST(VerifyTest, EachBrokenLayerFailsItsCheck) {
  struct Case {
    const char* section;
    std::string from, to;
    std::vector<std::string> failed;
  };
  const std::vector<Case> cases = {
      {"ns", "user:[4026532303]", "user:[4026531837]", {"ns_user"}},  // the host's
      {"ns", "lrwxrwxrwx 1 1000 1000 0 Jan  1 00:00 net -> net:[4026532309]\n", "", {"ns_net"}},
      {"status", "Uid:\t1000\t1000\t1000\t1000", "Uid:\t1000\t0\t1000\t1000", {"uid"}},
      {"status", "NoNewPrivs:\t1", "NoNewPrivs:\t0", {"NoNewPrivs"}},
      {"status", "Seccomp:\t2", "Seccomp:\t0", {"Seccomp"}},
      {"status", "CapBnd:\t0000000000000000", "CapBnd:\t000001ffffffffff", {"CapBnd"}},
      {"uid_map", "1000 3900001000", "1000          0", {"uid_map"}},
      {"mountinfo", "/ / ro,", "/ / rw,", {"root_readonly"}},
      {"mountinfo", "/workspace rw,", "/workspace ro,", {"workspace_writable"}},
      {"net_dev", "    lo:", "  eth0: 1 2\n    lo:", {"network"}},
  };
  for (const Case& c : cases) {
    auto probe = GoodProbe();
    std::string& text = probe[c.section];
    size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    EXPECT_EQ(Failed(CompareIsolation(probe, GoodExpectations())), c.failed) << c.to;
  }
}

TEST(VerifyTest, AMountStackedOnTopDecides) {
  auto probe = GoodProbe();
  probe["mountinfo"] += "310 300 0:60 / / rw,relatime - tmpfs tmpfs rw\n";
  EXPECT_EQ(Failed(CompareIsolation(probe, GoodExpectations())),
            std::vector<std::string>{"root_readonly"});
}

TEST(VerifyTest, CgroupLimitsMustMatchThePolicy) {
  auto w = GoodExpectations();
  w.got_memory_limit_bytes = (512u << 20) - 4096;  // page rounding is fine
  EXPECT_EQ(Failed(CompareIsolation(GoodProbe(), w)), std::vector<std::string>{});
  w.got_memory_limit_bytes = UINT64_MAX;
  w.got_pids_limit = 0;
  auto checks = CompareIsolation(GoodProbe(), w);
  EXPECT_EQ(Failed(checks), (std::vector<std::string>{"memory_limit", "pids_limit"}));
  EXPECT_EQ(Find(checks, "memory_limit").got, "max");
  EXPECT_EQ(Find(checks, "pids_limit").got, "unknown");
}

TEST(VerifyTest, MissingSectionsFailRatherThanPass) {
  auto checks = CompareIsolation({}, GoodExpectations());
  EXPECT_EQ(Failed(checks).size(), checks.size() - 2);  // only the cgroup limits are host-side
  EXPECT_EQ(Find(checks, "CapEff").got, "missing");
  VerifyExpectations no_host = GoodExpectations();
  no_host.host_namespaces.clear();  // cannot compare: not a pass
  EXPECT_FALSE(Find(CompareIsolation(GoodProbe(), no_host), "ns_user").ok);
}

TEST(VerifyTest, ReportJsonHasTheDocumentedShape) {
  VerifyReport report{"abc", {{"CapEff", "0", "\xff", false}}};
  std::string text = VerifyReportJson(report);
  EXPECT_EQ(text.find("{\"id\":\"abc\",\"ok\":false,\"checks\":[{\"name\":\"CapEff\""), 0u) << text;
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["id"], "abc");
  EXPECT_EQ(j["ok"], false);
  ASSERT_EQ(j["checks"].size(), 1u);
  EXPECT_EQ(j["checks"][0]["name"], "CapEff");
  EXPECT_EQ(j["checks"][0]["got"], "\xEF\xBF\xBD");  // the sandbox's bytes, made valid UTF-8
  EXPECT_FALSE(VerifyReport{}.ok());                 // no checks: nothing proven
}

// ---- a pod on a node (kubernetes): compared with the node's initial namespaces ----------------

// What the probe prints in a pod without a user namespace (hostUsers true, the default).
std::map<std::string, std::string> PodProbe(const char* release) {
  auto probe = GoodProbe();
  std::string ns = kNsCoreutils;
  ns.replace(ns.find("user:[4026532303]"), 17, "user:[4026531837]");  // the node's own
  probe["ns"] = ns;
  probe["uid_map"] = "         0          0 4294967295\n";
  probe["gid_map"] = probe["uid_map"];
  probe["net_dev"] = std::string(kNetDev) + "  eth0:    1000      10    0    0    0     0\n";
  probe["osrelease"] = std::string(release) + "\n";
  return probe;
}

VerifyExpectations PodExpectations() {
  VerifyExpectations w = GoodExpectations();
  w.remote_node = true;
  w.host_account_uids = {0, 1000};  // agentbox's host's, which must not matter for a pod
  return w;
}

std::vector<std::string> NotApplicable(const std::vector<VerifyCheck>& checks) {
  std::vector<std::string> names;
  for (const VerifyCheck& c : checks) {
    if (!c.not_applicable.empty()) names.push_back(c.name);
  }
  return names;
}

TEST(VerifyPodTest, NamespacesAreComparedWithTheNodesInitialOnes) {
  auto checks = CompareIsolation(PodProbe("6.18.4-amd64"), PodExpectations());
  EXPECT_EQ(Failed(checks), std::vector<std::string>{"ns_user"});  // not applicable, below
  EXPECT_EQ(NotApplicable(checks), std::vector<std::string>{"ns_user"});
  EXPECT_NE(Find(checks, "ns_user").not_applicable.find("hostUsers"), std::string::npos);
  EXPECT_EQ(Find(checks, "ns_pid").want, "not pid:[4026531836] (the node's own)");
  EXPECT_EQ(Find(checks, "ns_mnt").want, "not mnt:[4026531832] (the node's own)");
  EXPECT_TRUE(Find(checks, "ns_net").ok);
  EXPECT_EQ(Find(checks, "uid_map").want, "1000 -> not 0");  // the node's accounts are unseen
  EXPECT_EQ(Find(checks, "network").got, "eth0,lo");
  VerifyReport report{"abc", checks};
  EXPECT_TRUE(report.ok());
  EXPECT_TRUE(VerifyFailureLines(report).empty());
}

TEST(VerifyPodTest, BeforeLinux618MntAndNetHaveNothingToCompareWith) {
  for (const char* release : {"6.1.0-28-amd64", "5.15.0", "", "4.4.0"}) {
    auto checks = CompareIsolation(PodProbe(release), PodExpectations());
    EXPECT_EQ(NotApplicable(checks), (std::vector<std::string>{"ns_user", "ns_mnt", "ns_net"}))
        << release;
    EXPECT_NE(Find(checks, "ns_mnt").not_applicable.find("6.18"), std::string::npos);
    EXPECT_TRUE(VerifyReport({"abc", checks}).ok()) << release;
  }
  // A pod in the node's own mount namespace is caught on any kernel that numbers it so.
  auto probe = PodProbe("6.1.0");
  probe["ns"].replace(probe["ns"].find("mnt:[4026532304]"), 16, "mnt:[4026531832]");
  auto checks = CompareIsolation(probe, PodExpectations());
  EXPECT_FALSE(Find(checks, "ns_mnt").ok);
  EXPECT_TRUE(Find(checks, "ns_mnt").not_applicable.empty());
}

TEST(VerifyPodTest, TheNodesOwnNamespacesAndExtraInterfacesFail) {
  auto probe = PodProbe("6.18.0");
  std::string& ns = probe["ns"];
  for (size_t at; (at = ns.find("pid:[4026532307]")) != std::string::npos;) {  // hostPID
    ns.replace(at, 16, "pid:[4026531836]");  // pid and pid_for_children
  }
  ns.replace(ns.find("uts:[4026532305]"), 16, "uts:[4026531838]");  // hostNetwork's UTS
  probe["net_dev"] += " wlan0: 1 2\n";
  probe["uid_map"] = "1000 0 1\n";
  auto checks = CompareIsolation(probe, PodExpectations());
  EXPECT_EQ(Failed(checks),
            (std::vector<std::string>{"ns_user", "ns_pid", "ns_uts", "uid_map", "network"}));
  EXPECT_EQ(NotApplicable(checks), std::vector<std::string>{"ns_user"});
  VerifyReport report{"abc", checks};
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(VerifyFailureLines(report).size(), 4u);  // never a line for what does not apply
  // Only lo: the pod's interface is missing (its agent could not be reached), not a pass.
  probe = PodProbe("6.18.0");
  probe["net_dev"] = kNetDev;
  EXPECT_FALSE(Find(CompareIsolation(probe, PodExpectations()), "network").ok);
}

TEST(VerifyPodTest, AUserNamespaceOfItsOwnPasses) {
  auto probe = PodProbe("6.1.0");
  probe["ns"] = kNsCoreutils;  // hostUsers: false, or a runtime that makes one
  EXPECT_EQ(NotApplicable(CompareIsolation(probe, PodExpectations())),
            (std::vector<std::string>{"ns_mnt", "ns_net"}));
}

TEST(VerifyPodTest, TheNodesCgroupNamespaceIsTheRuntimesChoice) {
  auto probe = PodProbe("6.18.0");  // podman on a cgroup v1 node: no cgroup namespace
  probe["ns"].replace(probe["ns"].find("cgroup:[4026532310]"), 19, "cgroup:[4026531835]");
  auto checks = CompareIsolation(probe, PodExpectations());
  EXPECT_EQ(NotApplicable(checks), (std::vector<std::string>{"ns_user", "ns_cgroup"}));
  EXPECT_NE(Find(checks, "ns_cgroup").not_applicable.find("cgroup v2"), std::string::npos);
  EXPECT_TRUE(VerifyReport({"abc", checks}).ok());
}

TEST(VerifyTest, NotApplicableIsNullWithItsReasonAndNoVerdict) {
  VerifyCheck na{"ns_mnt", "not mnt:[1]", "mnt:[2]", true, "no number to compare with"};
  VerifyReport report{"abc", {{"CapEff", "0", "0", true}, na}};
  auto j = nlohmann::json::parse(VerifyReportJson(report));
  EXPECT_EQ(j["ok"], true);
  EXPECT_TRUE(j["checks"][1]["ok"].is_null());
  EXPECT_EQ(j["checks"][1]["reason"], "no number to compare with");
  EXPECT_FALSE(j["checks"][0].contains("reason"));
  EXPECT_FALSE((VerifyReport{"abc", {na}}.ok()));  // nothing that applies: nothing proven
}

}  // namespace
}  // namespace agentbox
