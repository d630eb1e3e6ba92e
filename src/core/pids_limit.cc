#include "core/pids_limit.h"

namespace agentbox {
namespace {

std::string Allows(uint64_t got) {
  if (got == UINT64_MAX) return "allows any number of processes (pids.max is max)";
  if (got == 0) return "could not be read (pids.max unknown)";
  return "allows " + std::to_string(got) + " (pids.max)";
}

}  // namespace

PidsLimitReport PidsLimitReportOf(uint64_t want, std::optional<uint64_t> got, bool pod) {
  PidsLimitReport report;
  report.count = want;
  if (!got) return report;
  report.enforced = *got != 0 && *got <= want;
  if (*report.enforced) return report;
  report.reason = pod ? "a pod has no pids limit of its own (the kubelet's podPidsLimit is per "
                        "node), and its container's cgroup " +
                            Allows(*got)
                      : "the sandbox's cgroup " + Allows(*got);
  return report;
}

nlohmann::json PidsLimitJson(const PidsLimitReport& report) {
  nlohmann::json j = {{"count", report.count},
                      {"enforced", report.enforced ? nlohmann::json(*report.enforced) : nullptr}};
  if (report.enforced == false) j["reason"] = report.reason;
  return j;
}

std::string UnheldPidsLimitNote(const PidsLimitReport& report) {
  if (report.enforced != false) return "";
  return "note: the pids limit " + std::to_string(report.count) +
         " is not enforced: " + report.reason;
}

}  // namespace agentbox
