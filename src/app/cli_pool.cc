// `agentbox pool fill|ls|drain`: warm pools of started docker or kubernetes sandboxes
// (core/warm_pool.h).
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <vector>

#include "app/backends.h"
#include "app/cli.h"
#include "core/sandbox_manager.h"
#include "spec/run_args.h"

namespace agentbox {
namespace {

// What a verb did, as a line or, with --json, as {KEY: N}.
void PrintCount(bool json, const char* key, size_t n) {
  WriteStdout(json ? nlohmann::json{{key, n}}.dump() + "\n"
                   : std::string(key) + " " + std::to_string(n) + "\n");
}

void PrintPools(bool json, const std::vector<PoolStatus>& pools) {
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const PoolStatus& p : pools) {
      out.push_back({{"key", p.key},
                     {"backend", BackendName(p.backend)},
                     {"size", p.size},
                     {"warm", p.warm},
                     {"image", p.image}});
    }
    WriteStdout(out.dump() + "\n");
    return;
  }
  std::string out = "KEY               BACKEND  SIZE  WARM  IMAGE\n";
  for (const PoolStatus& p : pools) {
    char line[512];
    std::snprintf(line, sizeof(line), "%-17s %-8s %-5zu %-5zu %s\n", p.key.c_str(),
                  BackendName(p.backend), p.size, p.warm, p.image.c_str());
    out += line;
  }
  WriteStdout(out);
}

int Fill(const Args& args, bool json) {
  Args create_args;
  size_t size = 2;
  std::string key;
  for (size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == "--size" || args[i] == "--key") && i + 1 >= args.size()) {
      return FailWith(InvalidArgument(args[i] + ": needs a value"));
    }
    if (args[i] == "--size") {
      char* end = nullptr;
      unsigned long n = std::strtoul(args[++i].c_str(), &end, 10);
      if (args[i].empty() || *end != '\0' || n > 1000) {
        return FailWith(
            InvalidArgument("--size: want a count from 0 to 1000, got \"" + args[i] + "\""));
      }
      size = n;
    } else if (args[i] == "--key") {
      key = args[++i];
    } else {
      create_args.push_back(args[i]);
    }
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  if (!key.empty()) {
    auto started = manager->RefillPool(key);
    return started.ok() ? 0 : FailWith(started.status());
  }
  auto invocation = ParseCreateArgs(create_args);
  if (!invocation.ok()) return FailWith(invocation.status());
  if (!invocation->name.empty())
    return FailWith(InvalidArgument("pool fill: --name is not for pools"));
  if (invocation->run.flags.ttl_seconds || invocation->run.flags.idle_timeout_seconds) {
    return FailWith(InvalidArgument(
        "pool fill: --ttl and --idle-timeout are not for pools (a warm sandbox's are those of "
        "the create that claims it)"));
  }
  auto spec = ResolveRunSpec(invocation->run);
  if (!spec.ok()) return FailWith(spec.status());
  auto started = manager->FillPool(*spec, size);
  if (!started.ok()) return FailWith(started.status());
  PrintCount(json, "started", *started);
  return 0;
}

}  // namespace

const CommandHelp& PoolHelp() {
  static const std::vector<FlagDef> flags = [] {
    std::vector<FlagDef> v = {
        {"size", 0, "N", "fill: how many started sandboxes the pool keeps (0 to 1000)", "2"},
        {"json", 0, "",
         "print JSON: ls an array of {key, backend, size, warm, image}, fill {\"started\": N}, "
         "drain {\"removed\": N}"},
        {"key", 0, "KEY", "", "", /*hidden=*/true},  // serve's background refill of one pool
    };
    for (const FlagDef& def : CreateHelp().flags) {
      if (def.long_name != "name" && def.long_name != "ttl" && def.long_name != "idle-timeout" &&
          def.long_name != "json") {
        v.push_back(def);
      }
    }
    return v;
  }();
  static const CommandHelp help = {
      .name = "pool",
      .summary = "keep started docker or kubernetes sandboxes warm for fast create",
      .usage =
          "pool fill [--size N] [--json] [OPTIONS of create]\n"
          "pool ls [--json]\n"
          "pool drain [--json]",
      .description =
          "A warm pool keeps N started sandboxes of one shape (backend, image, runtime and the "
          "box-wide limits) so that `agentbox create` (and `run`, serve, mcp) with that shape and "
          "no --workspace claims one instead of starting a container or a pod; each claim is "
          "topped up in the background. Pools serve the docker and kubernetes backends (on "
          "kubernetes, a create with --ttl is made fresh: its pod's deadline counts from its own "
          "start). `fill` sets a pool's size and waits until it is full; `drain` waits for a fill "
          "in progress, then removes every warm sandbox and sets sizes to 0.",
      .flags = flags,
      .operands = "word:fill|ls|drain",
  };
  return help;
}

int PoolSubcommand(const Args& args) {
  const std::string usage = FormatHelp(PoolHelp());
  if (args.empty()) return FailWith(InvalidArgument("usage: agentbox pool fill|ls|drain"));
  const std::string& verb = args[0];
  Args rest(args.begin() + 1, args.end());
  if (verb == "-h" || verb == "--help" || IsHelpRequest(rest)) {
    WriteStdout(usage);
    return 0;
  }
  const bool json = TakeFlag(rest, "--json");
  if (verb == "fill") return Fill(rest, json);
  if (verb != "ls" && verb != "drain") {
    return FailWith(InvalidArgument("pool: unknown subcommand \"" + verb + "\" (fill, ls, drain)"));
  }
  if (!rest.empty()) return FailWith(InvalidArgument("pool " + verb + " takes only --json"));
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  if (verb == "drain") {
    PrintCount(json, "removed", manager->DrainPools());
  } else {
    PrintPools(json, manager->ListPools());
  }
  return 0;
}

}  // namespace agentbox
