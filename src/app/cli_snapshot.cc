// Snapshots of a sandbox's workspace: `agentbox snapshot ID [--name N]`, `snapshot ls [ID]`,
// `snapshot rm SNAP...`, `restore ID SNAP`, `fork SNAP [--name NEW]` and `diff ID SNAP`.
#include <nlohmann/json.hpp>

#include "app/backends.h"
#include "app/cli.h"
#include "core/sandbox_manager.h"
#include "spec/cli_flags.h"
#include "spec/command_help.h"

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

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s + " ";
}

int ListSnapshotsOf(const std::vector<SandboxRecord>& sandboxes, bool json) {
  nlohmann::json list = nlohmann::json::array();
  std::string table = Pad("SNAPSHOT", 12) + Pad("NAME", 20) + Pad("SANDBOX", 12) + "CREATED\n";
  for (const SandboxRecord& sandbox : sandboxes) {
    for (const SnapshotRecord& s : ListSnapshots(sandbox)) {
      list.push_back(SnapshotViewJson(s));
      table += Pad(s.id, 12) + Pad(s.name.empty() ? "-" : s.name, 20) + Pad(s.sandbox_id, 12) +
               s.created_at + "\n";
    }
  }
  WriteStdout(json ? list.dump() + "\n" : table);
  return 0;
}

int SnapshotLs(SandboxManager& manager, const ParsedArgs& inv) {
  std::vector<SandboxRecord> sandboxes;
  if (inv.rest.size() > 2) return FailWith(InvalidArgument("usage: snapshot ls [ID|NAME]"));
  if (inv.rest.size() == 2) {
    auto found = manager.Find(inv.rest[1]);
    if (!found.ok()) return FailWith(found.status());
    sandboxes.push_back(found->record);
  } else {
    for (SandboxStatus& s : manager.List()) sandboxes.push_back(std::move(s.record));
  }
  return ListSnapshotsOf(sandboxes, HasFlag(inv, "json"));
}

int SnapshotRm(SandboxManager& manager, const ParsedArgs& inv) {
  if (inv.rest.size() < 2) return FailWith(InvalidArgument("usage: snapshot rm SNAP..."));
  int status = 0;
  for (size_t i = 1; i < inv.rest.size(); ++i) {
    auto found = manager.FindAnySnapshot(inv.rest[i], [](const SandboxRecord&) { return true; });
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

const CommandHelp& SnapshotHelp() {
  static const CommandHelp help = {
      .name = "snapshot",
      .summary = "snapshot a sandbox's workspace; snapshot ls, snapshot rm",
      .usage =
          "snapshot [--name N] [--json] ID|NAME\nsnapshot ls [--json] [ID|NAME]\nsnapshot rm "
          "SNAP...",
      .description =
          "Takes a snapshot of a sandbox's workspace and prints its id: on a btrfs workspace pool "
          "a subvolume snapshot (every block shared), elsewhere a "
          "reflink or plain copy (docs/policy.md says which and what it costs). `ls` lists "
          "snapshots (of one sandbox, or of all), `rm` removes them.\n"
          "\n"
          "SNAP is a snapshot's id, a unique prefix of it, or SANDBOX:NAME. A snapshot keeps the "
          "workspace's files, not processes, /tmp or memory; it goes with its sandbox. See also "
          "restore, diff and fork.",
      .flags = kSnapshotFlags,
      .operands = "sandbox",
  };
  return help;
}

const CommandHelp& RestoreHelp() {
  static const CommandHelp help = {
      .name = "restore",
      .summary = "put a sandbox's workspace back as a snapshot holds it",
      .usage = "restore [--json] ID|NAME SNAP",
      .description =
          "Puts the sandbox's workspace back exactly as the snapshot holds it, in place: only "
          "what changed since is touched. Refused while a command or a background process runs "
          "in the sandbox (nothing is changed then).",
      .flags = kJsonFlags,
      .operands = "sandbox word",
  };
  return help;
}

const CommandHelp& ForkHelp() {
  static const CommandHelp help = {
      .name = "fork",
      .summary = "a new sandbox whose workspace starts as a snapshot",
      .usage = "fork [--name NEW] SNAP",
      .description =
          "Creates a sandbox with the policy of the snapshot's sandbox whose workspace starts as "
          "the snapshot holds it, and prints its id. On btrfs, forks of one snapshot share its "
          "blocks: each costs only what it changes.",
      .flags = kForkFlags,
      .operands = "word",
  };
  return help;
}

const CommandHelp& DiffHelp() {
  static const CommandHelp help = {
      .name = "diff",
      .summary = "what changed in a sandbox's workspace since a snapshot",
      .usage = "diff [--json] ID|NAME SNAP",
      .description =
          "What changed in the sandbox's workspace since the snapshot, one line per path: A "
          "created, M modified (content, mode or owner), D deleted (a directory created or deleted "
          "is one line).",
      .flags = kJsonFlags,
      .operands = "sandbox word",
  };
  return help;
}

int SnapshotSubcommand(const Args& args) {
  int exit = 0;
  auto inv = ParseOrHelp(SnapshotHelp(), args, &exit);
  if (!inv) return exit;
  const std::vector<std::string>& pos = inv->rest;
  if (pos.empty()) return FailWith(InvalidArgument("usage: agentbox snapshot ID|NAME [--name N]"));
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  if (pos[0] == "ls") return SnapshotLs(*manager, *inv);
  if (pos[0] == "rm") return SnapshotRm(*manager, *inv);
  if (pos.size() != 1)
    return FailWith(InvalidArgument("usage: agentbox snapshot ID|NAME [--name N]"));
  auto found = manager->Find(pos[0]);
  if (!found.ok()) return FailWith(found.status());
  const std::string* name = FlagValue(*inv, "name");
  auto snap = manager->TakeSnapshot(found->record, name ? *name : "");
  if (!snap.ok()) return FailWith(snap.status());
  WriteStdout(HasFlag(*inv, "json") ? SnapshotViewJson(*snap).dump() + "\n" : snap->id + "\n");
  return 0;
}

int RestoreSubcommand(const Args& args) {
  int exit = 0;
  auto inv = ParseOrHelp(RestoreHelp(), args, &exit);
  if (!inv) return exit;
  if (inv->rest.size() != 2)
    return FailWith(InvalidArgument("usage: agentbox restore ID|NAME SNAP"));
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  auto found = manager->Find(inv->rest[0]);
  if (!found.ok()) return FailWith(found.status());
  auto snap = manager->FindSnapshot(found->record, inv->rest[1]);
  if (!snap.ok()) return FailWith(snap.status());
  auto stats = manager->Restore(found->record, *snap);
  if (!stats.ok()) return FailWith(stats.status());
  WriteStdout(HasFlag(*inv, "json") ? RestoredJson(snap->id, found->record.id, *stats).dump() + "\n"
                                    : "restored " + found->record.id + " to " + snap->id + " (" +
                                          std::to_string(stats->copied) + " put back, " +
                                          std::to_string(stats->removed) + " removed, " +
                                          std::to_string(stats->kept) + " unchanged)\n");
  return 0;
}

int ForkSubcommand(const Args& args) {
  int exit = 0;
  auto inv = ParseOrHelp(ForkHelp(), args, &exit);
  if (!inv) return exit;
  if (inv->rest.size() != 1)
    return FailWith(InvalidArgument("usage: agentbox fork SNAP [--name NEW]"));
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  auto found = manager->FindAnySnapshot(inv->rest[0], [](const SandboxRecord&) { return true; });
  if (!found.ok()) return FailWith(found.status());
  const std::string* name = FlagValue(*inv, "name");
  auto record = manager->Fork(found->first, found->second, name ? *name : "");
  if (!record.ok()) return FailWith(record.status());
  WriteStdout(record->id + "\n");
  return 0;
}

int DiffSubcommand(const Args& args) {
  int exit = 0;
  auto inv = ParseOrHelp(DiffHelp(), args, &exit);
  if (!inv) return exit;
  if (inv->rest.size() != 2) return FailWith(InvalidArgument("usage: agentbox diff ID|NAME SNAP"));
  auto manager = OpenSandboxManager();
  if (!manager.ok()) return FailWith(manager.status());
  auto found = manager->Find(inv->rest[0]);
  if (!found.ok()) return FailWith(found.status());
  auto snap = manager->FindSnapshot(found->record, inv->rest[1]);
  if (!snap.ok()) return FailWith(snap.status());
  auto diff = manager->Diff(found->record, *snap, kDiffListed);
  if (!diff.ok()) return FailWith(diff.status());
  WriteStdout(HasFlag(*inv, "json") ? TreeDiffJson(*diff).dump() + "\n" : TreeDiffText(*diff));
  return 0;
}

}  // namespace agentbox
