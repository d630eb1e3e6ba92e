#include "proc/cgroup_stats_wire.h"

namespace agentbox {
namespace {

uint64_t Count(const nlohmann::json& stats, const char* key) {
  auto it = stats.find(key);
  return it != stats.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

}  // namespace

std::string CgroupStatsToWire(const CgroupStats& s) {
  nlohmann::json stats = {{"peak_memory_bytes", s.peak_memory_bytes},
                          {"cpu_ms", s.cpu_ms},
                          {"oom_kills", s.oom_kills},
                          {"memory_events", s.memory_events},
                          {"pids_events", s.pids_events},
                          {"throttled_periods", s.throttled_periods},
                          {"memory_limit_bytes", s.memory_limit_bytes},
                          {"pids_limit", s.pids_limit}};
  return nlohmann::json{{"ok", true}, {"stats", stats}}.dump();
}

StatusOr<CgroupStats> CgroupStatsFromJson(const nlohmann::json& response) {
  if (!response.is_object() || !response.contains("stats") || !response["stats"].is_object()) {
    return InvalidArgument("malformed box_stats answer: no \"stats\" object");
  }
  const nlohmann::json& stats = response["stats"];
  CgroupStats s;
  s.peak_memory_bytes = Count(stats, "peak_memory_bytes");
  auto cpu = stats.find("cpu_ms");
  if (cpu != stats.end() && cpu->is_number() && cpu->get<double>() >= 0) s.cpu_ms = *cpu;
  s.oom_kills = Count(stats, "oom_kills");
  s.memory_events = Count(stats, "memory_events");
  s.pids_events = Count(stats, "pids_events");
  s.throttled_periods = Count(stats, "throttled_periods");
  s.memory_limit_bytes = Count(stats, "memory_limit_bytes");
  s.pids_limit = Count(stats, "pids_limit");
  return StatsSince(s, CgroupStats{});
}

}  // namespace agentbox
