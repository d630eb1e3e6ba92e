#include "proto/policy_walls.h"

#include <algorithm>
#include <string>

#include "spec/units.h"

namespace agentbox {
namespace {

std::string SizeText(uint64_t bytes) { return bytes == kNoDiskLimit ? "none" : FormatSize(bytes); }

Wall LimitWall(const std::string& limit, const LimitValues& v) {
  Wall w;
  w.wall = kWallLimit;
  w.what = limit;
  w.seen_by = kSeenBySupervisor;
  if (limit == kLimitTimeout) {
    w.rule = "timeout " + FormatSeconds(v.timeout_seconds) + "s";
    w.message = "timeout: the wall-clock limit (" + FormatSeconds(v.timeout_seconds) +
                " s, --timeout) ended the command; raise it, or start a long command in the "
                "background (exec -d)";
  } else if (limit == kLimitMemory) {
    w.rule = "memory " + SizeText(v.memory_bytes);
    w.message = "memory: the memory limit (" + SizeText(v.memory_bytes) +
                ", --memory, no swap) refused an allocation or ended a process (OOM)";
  } else if (limit == kLimitPids) {
    w.rule = "pids " + std::to_string(v.pids);
    w.message = "pids: the limit of " + std::to_string(v.pids) +
                " processes and threads alive at once (--pids) refused a fork or a thread";
  } else if (limit == kLimitCpu) {
    char cpus[32];
    std::snprintf(cpus, sizeof(cpus), "%g", v.cpus);
    w.rule = std::string("cpus ") + cpus;
    w.message = std::string("cpu: the CPU limit (") + cpus + " CPU, --cpus) throttled the command";
  } else if (limit == kLimitOutput) {
    w.rule = "output_limit " + SizeText(v.output_bytes);
    w.message = "output: the output limit (" + SizeText(v.output_bytes) +
                " per stream, --output-limit) dropped what came after it";
  } else if (limit == kLimitDisk) {
    w.rule = "disk_limit " + SizeText(v.disk_bytes);
    w.error = "EDQUOT";
    w.message = "disk: the disk limit (" + SizeText(v.disk_bytes) +
                ", --disk-limit) refused a write to /workspace (Disk quota exceeded)";
  } else {
    w.rule = limit;
    w.message = limit + ": a limit was hit";
  }
  return w;
}

// A connection the proxy refused, or a name the sandbox's DNS catcher answered "no such host".
Wall NetworkWall(const NetworkConnection& c, bool egress) {
  Wall w;
  w.wall = kWallNetwork;
  const std::string rule = egress ? "allow_hosts" : "no network";
  w.rule = rule;
  if (c.kind == NetworkKind::kLookup) {
    w.what = c.host;
    w.seen_by = kSeenByDnsCatcher;
    w.message = "network: lookup of " + c.host + " denied by policy (" + rule +
                (egress ? ": not in allow_hosts" : ": the sandbox has no network; --allow-host") +
                ")";
    return w;
  }
  const bool v6 = c.host.find(':') != std::string::npos;
  w.what = c.port == 0 ? "a connection"
                       : (v6 ? "[" + c.host + "]" : c.host) + ":" + std::to_string(c.port);
  w.seen_by = kSeenByProxy;
  w.message = "network: " + (c.port == 0 ? w.what : "connect to " + w.what) +
              " denied by policy (" + rule + ")" + (c.reason.empty() ? "" : ": " + c.reason);
  return w;
}

}  // namespace

LimitValues LimitValuesOf(const Limits& limits) {
  return {limits.timeout_seconds, limits.memory_bytes, limits.pids, limits.cpus,
          limits.output_bytes,    limits.disk_bytes};
}

void AddPolicyWalls(ExecResult& result, const LimitValues& limits) {
  EffectReport& effects = result.effects;
  std::vector<Wall> before;
  for (const std::string& limit : result.limits_hit) before.push_back(LimitWall(limit, limits));
  for (const NetworkConnection& c : result.network.connections) {
    if (c.allowed) continue;
    Wall w = NetworkWall(c, result.network.egress);
    auto same = std::find_if(before.begin(), before.end(),
                             [&](const Wall& o) { return o.message == w.message; });
    if (same != before.end()) {
      ++same->count;
    } else {
      before.push_back(std::move(w));
    }
  }
  const bool saw_network = result.network.egress || !result.network.connections.empty();
  std::vector<Wall> rest = std::move(effects.walls);
  const uint64_t omitted = effects.walls_omitted;
  effects.walls.clear();
  effects.walls_omitted = 0;
  for (Wall& w : before) effects.AddWall(std::move(w));
  for (Wall& w : rest) {
    // The proxy and the DNS catcher saw the attempts: stderr's guesses at them add nothing.
    if (saw_network && w.wall == kWallNetwork && w.seen_by == kSeenInOutput) continue;
    if (w.wall == kWallNetwork && w.seen_by == kSeenInOutput && !result.network.egress) {
      w.rule = "no network";  // stderr cannot tell; the policy can
    }
    effects.AddWall(std::move(w));
  }
  effects.walls_omitted += omitted;
}

}  // namespace agentbox
