// Snapshots of a sandbox's workspace: `agentbox snapshot ID [--name N]`, `snapshot ls [ID]`,
// `snapshot rm SNAP...`, `restore ID SNAP`, `fork SNAP [--name NEW]` and `diff ID SNAP`.
#include <nlohmann/json.hpp>

#include "app/backends.h"
#include "app/cli.h"
#include "core/sandbox_manager.h"
#include "spec/cli_flags.h"

namespace agentbox {
namespace {

constexpr FlagDef kSnapshotFlags[] = {
    {"name", 0, "NAME", "a name, unique among the sandbox's snapshots"},
    {"json", 0, "", "print JSON"},
    {"help", 'h', "", "show this help"},
};
constexpr FlagDef kJsonFlags[] = {
    {"json", 0, "", "print JSON"},
    {"help", 'h', "", "show this help"},
};
constexpr FlagDef kForkFlags[] = {
    {"name", 0, "NAME", "a unique name for the new sandbox"},
    {"help", 'h', "", "show this help"},
};
constexpr size_t kDiffListed = 10000;

struct Invocation {
  std::vector<std::string> positional;
  std::string name;
  bool json = false;
  bool help = false;
};

StatusOr<Invocation> Parse(std::span<const FlagDef> defs, const Args& args) {
  AB_ASSIGN_OR_RETURN(ParsedArgs parsed, ParseFlags(defs, args));
  Invocation inv;
  for (const ParsedFlag& flag : parsed.flags) {
    if (flag.def->long_name == "name") inv.name = flag.value;
    if (flag.def->long_name == "json") inv.json = true;
    if (flag.def->long_name == "help") inv.help = true;
  }
  inv.positional = std::move(parsed.rest);
  return inv;
}

int Usage(const char* usage, const char* what, std::span<const FlagDef> defs) {
  WriteStdout(std::string("Usage: ") + usage + "\n\n" + what + "\n\nOptions:\n" +
              FormatFlagHelp(defs));
  return 0;
}

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s + " ";
}

nlohmann::json SnapshotJson(const SnapshotRecord& s) {
  return {{"id", s.id},
          {"name", s.name},
          {"sandbox", s.sandbox_id},
          {"created_at", s.created_at},
          {"workspace_digest", s.workspace_digest.empty() ? nlohmann::json()
                                                          : nlohmann::json(s.workspace_digest)}};
}

int ListSnapshotsOf(const std::vector<SandboxRecord>& sandboxes, bool json) {
  nlohmann::json list = nlohmann::json::array();
  std::string table = Pad("SNAPSHOT", 12) + Pad("NAME", 20) + Pad("SANDBOX", 12) + "CREATED\n";
  for (const SandboxRecord& sandbox : sandboxes) {
    for (const SnapshotRecord& s : ListSnapshots(sandbox)) {
      list.push_back(SnapshotJson(s));
      table += Pad(s.id, 12) + Pad(s.name.empty() ? "-" : s.name, 20) + Pad(s.sandbox_id, 12) +
               s.created_at + "\n";
    }
  }
  WriteStdout(json ? list.dump() + "\n" : table);
  return 0;
}

int SnapshotLs(SandboxManager& manager, const Invocation& inv) {
  std::vector<SandboxRecord> sandboxes;
  if (inv.positional.size() > 2) return FailWith(InvalidArgument("usage: snapshot ls [ID|NAME]"));
  if (inv.positional.size() == 2) {
    auto found = manager.Find(inv.positional[1]);
    if (!found.ok()) return FailWith(found.status());
    sandboxes.push_back(found->record);
  } else {
    for (SandboxStatus& s : manager.List()) sandboxes.push_back(std::move(s.record));
  }
  return ListSnapshotsOf(sandboxes, inv.json);
}

int SnapshotRm(SandboxManager& manager, const Invocation& inv) {
  if (inv.positional.size() < 2) return FailWith(InvalidArgument("usage: snapshot rm SNAP..."));
  int status = 0;
  for (size_t i = 1; i < inv.positional.size(); ++i) {
    auto found = manager.FindAnySnapshot(inv.positional[i], [](const SandboxRecord&) { return true; });
    Status st = found.ok() ? manager.RemoveSnapshot(found->first, found->second) : found.status();
    if (st.ok()) {
      WriteStdout(found->second.id + "\n");
    } else {
      status = FailWith(st);
    }
  }
  return status;
}

}  // namespace

int SnapshotSubcommand(const Args& args) {
  auto inv = Parse(kSnapshotFlags, args);
  if (!inv.ok()) return FailWith(inv.status());
  if (inv->help) {
    return Usage(
        "agentbox snapshot ID|NAME [--name N] | snapshot ls [ID|NAME] | snapshot rm SNAP...",
        "Takes a snapshot of a sandbox's workspace and prints its id (a btrfs snapshot: a few\n"
        "milliseconds whatever its size, sharing every block). `ls` lists snapshots (of one\n"
        "sandbox, or of all), `rm` removes them. SNAP is a snapshot's id, a unique prefix of\n"
        "it, or SANDBOX:NAME. A snapshot keeps the workspace's files, not processes, /tmp or\n"
        "memory; it goes with its sandbox. See also restore, diff and fork.",
        kSnapshotFlags);
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  const std::vector<std::string>& pos = inv->positional;
  if (!pos.empty() && pos[0] == "ls") return SnapshotLs(*manager, *inv);
  if (!pos.empty() && pos[0] == "rm") return SnapshotRm(*manager, *inv);
  if (pos.size() != 1) return FailWith(InvalidArgument("usage: agentbox snapshot ID|NAME [--name N]"));
  auto found = manager->Find(pos[0]);
  if (!found.ok()) return FailWith(found.status());
  auto snap = manager->TakeSnapshot(found->record, inv->name);
  if (!snap.ok()) return FailWith(snap.status());
  WriteStdout(inv->json ? SnapshotJson(*snap).dump() + "\n" : snap->id + "\n");
  return 0;
}

int RestoreSubcommand(const Args& args) {
  auto inv = Parse(kJsonFlags, args);
  if (!inv.ok()) return FailWith(inv.status());
  if (inv->help) {
    return Usage("agentbox restore ID|NAME SNAP",
                 "Puts the sandbox's workspace back exactly as the snapshot holds it, in place:\n"
                 "only what changed since is touched. Refused while a command or a background\n"
                 "process runs in the sandbox (nothing is changed then).",
                 kJsonFlags);
  }
  if (inv->positional.size() != 2) {
    return FailWith(InvalidArgument("usage: agentbox restore ID|NAME SNAP"));
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  auto found = manager->Find(inv->positional[0]);
  if (!found.ok()) return FailWith(found.status());
  auto snap = manager->FindSnapshot(found->record, inv->positional[1]);
  if (!snap.ok()) return FailWith(snap.status());
  auto stats = manager->Restore(found->record, *snap);
  if (!stats.ok()) return FailWith(stats.status());
  nlohmann::ordered_json j = {{"restored", snap->id}, {"sandbox", found->record.id}};
  for (auto& [k, v] : SyncStatsJson(*stats).items()) j[k] = v;
  WriteStdout(inv->json ? j.dump() + "\n"
                        : "restored " + found->record.id + " to " + snap->id + " (" +
                              std::to_string(stats->copied) + " put back, " +
                              std::to_string(stats->removed) + " removed, " +
                              std::to_string(stats->kept) + " unchanged)\n");
  return 0;
}

int ForkSubcommand(const Args& args) {
  auto inv = Parse(kForkFlags, args);
  if (!inv.ok()) return FailWith(inv.status());
  if (inv->help) {
    return Usage("agentbox fork SNAP [--name NEW]",
                 "Creates a sandbox with the policy of the snapshot's sandbox whose workspace\n"
                 "starts as the snapshot holds it, and prints its id. Forks of one snapshot\n"
                 "share its blocks: each costs only what it changes.",
                 kForkFlags);
  }
  if (inv->positional.size() != 1) {
    return FailWith(InvalidArgument("usage: agentbox fork SNAP [--name NEW]"));
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  auto found =
      manager->FindAnySnapshot(inv->positional[0], [](const SandboxRecord&) { return true; });
  if (!found.ok()) return FailWith(found.status());
  auto record = manager->Fork(found->first, found->second, inv->name);
  if (!record.ok()) return FailWith(record.status());
  WriteStdout(record->id + "\n");
  return 0;
}

int DiffSubcommand(const Args& args) {
  auto inv = Parse(kJsonFlags, args);
  if (!inv.ok()) return FailWith(inv.status());
  if (inv->help) {
    return Usage("agentbox diff ID|NAME SNAP",
                 "What changed in the sandbox's workspace since the snapshot, one line per path:\n"
                 "A added, M modified (content, mode or owner), D deleted (a directory added or\n"
                 "deleted is one line).",
                 kJsonFlags);
  }
  if (inv->positional.size() != 2) {
    return FailWith(InvalidArgument("usage: agentbox diff ID|NAME SNAP"));
  }
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  auto found = manager->Find(inv->positional[0]);
  if (!found.ok()) return FailWith(found.status());
  auto snap = manager->FindSnapshot(found->record, inv->positional[1]);
  if (!snap.ok()) return FailWith(snap.status());
  auto diff = manager->Diff(found->record, *snap, kDiffListed);
  if (!diff.ok()) return FailWith(diff.status());
  WriteStdout(inv->json ? TreeDiffJson(*diff).dump() + "\n" : TreeDiffText(*diff));
  return 0;
}

}  // namespace agentbox
