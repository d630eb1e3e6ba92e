// /v1/sandboxes/{id}/snapshots (list, take, remove, restore, diff, fork) and .../log: a
// sandbox's snapshots and session log, each only to the tenant that sees the sandbox.
#include <nlohmann/json.hpp>

#include "app/self_exec.h"
#include "app/server/server_context.h"
#include "app/server/tenant_census.h"
#include "core/session_log.h"

namespace agentbox {
namespace {

constexpr size_t kDiffListed = 10000;

// The "name" of an optional {"name": "..."} body ("" when there is no body).
StatusOr<std::string> OptionalName(const HttpRequest& request) {
  if (request.body.empty()) return std::string();
  AB_ASSIGN_OR_RETURN(nlohmann::json body, ParseJsonBody(request));
  for (const auto& [key, value] : body.items()) {
    if (key != "name") return InvalidArgument("unknown key \"" + key + "\" (name)");
    if (!value.is_string()) return InvalidArgument("\"name\" must be a string");
  }
  return body.value("name", "");
}

// The sandbox of {id} (the caller's to see) and its snapshot {snap}.
StatusOr<std::pair<SandboxRecord, SnapshotRecord>> Target(ServerContext& ctx, Exchange& ex) {
  AB_ASSIGN_OR_RETURN(SandboxStatus found, FindVisible(ctx, ex.caller, ex.Param("id")));
  AB_ASSIGN_OR_RETURN(SnapshotRecord snap,
                      ctx.Manager().FindSnapshot(found.record, ex.Param("snap")));
  ex.audit["sandbox"] = found.record.id;
  ex.audit["snapshot"] = snap.id;
  return std::make_pair(found.record, snap);
}

}  // namespace

void HandleListSnapshots(ServerContext& ctx, Exchange& ex) {
  auto found = FindVisible(ctx, ex.caller, ex.Param("id"));
  if (!found.ok()) return ex.ReplyError(found.status());
  nlohmann::json list = nlohmann::json::array();
  for (const SnapshotRecord& s : ListSnapshots(found->record)) list.push_back(SnapshotViewJson(s));
  ex.ReplyJson(200, {{"snapshots", list}});
}

void HandleCreateSnapshot(ServerContext& ctx, Exchange& ex) {
  auto name = OptionalName(ex.request);
  if (!name.ok()) return ex.ReplyError(name.status());
  auto found = FindVisible(ctx, ex.caller, ex.Param("id"));
  if (!found.ok()) return ex.ReplyError(found.status());
  auto snap = ctx.Manager().TakeSnapshot(found->record, *name);
  if (!snap.ok()) return ex.ReplyError(snap.status());
  ex.audit["snapshot"] = snap->id;
  ex.ReplyJson(201, SnapshotViewJson(*snap),
               {{"Location", "/v1/sandboxes/" + found->record.id + "/snapshots/" + snap->id}});
}

void HandleDeleteSnapshot(ServerContext& ctx, Exchange& ex) {
  auto target = Target(ctx, ex);
  if (!target.ok()) return ex.ReplyError(target.status());
  Status st = ctx.Manager().RemoveSnapshot(target->first, target->second);
  if (!st.ok()) return ex.ReplyError(st);
  ex.ReplyJson(200, {{"removed", target->second.id}});
}

void HandleRestoreSnapshot(ServerContext& ctx, Exchange& ex) {
  auto target = Target(ctx, ex);
  if (!target.ok()) return ex.ReplyError(target.status());
  auto stats = ctx.Manager().Restore(target->first, target->second);
  if (!stats.ok()) return ex.ReplyError(stats.status());
  ex.Reply(200, "application/json",
           RestoredJson(target->second.id, target->first.id, *stats).dump() + "\n");
}

void HandleDiffSnapshot(ServerContext& ctx, Exchange& ex) {
  auto target = Target(ctx, ex);
  if (!target.ok()) return ex.ReplyError(target.status());
  auto diff = ctx.Manager().Diff(target->first, target->second, kDiffListed);
  if (!diff.ok()) return ex.ReplyError(diff.status());
  ex.Reply(200, "application/json", TreeDiffJson(*diff).dump() + "\n");
}

// A fork is a new sandbox: the tenant's quota of sandboxes holds, and, as a create, it is made
// by the single-threaded helper (`agentbox fork SANDBOX:SNAP`).
void HandleForkSnapshot(ServerContext& ctx, Exchange& ex) {
  auto name = OptionalName(ex.request);
  if (!name.ok()) return ex.ReplyError(name.status());
  auto target = Target(ctx, ex);
  if (!target.ok()) return ex.ReplyError(target.status());
  if (!name->empty()) {
    if (Status valid = ValidateSandboxName(*name); !valid.ok()) return ex.ReplyError(valid);
  }
  const std::string tenant_name = ex.caller.anonymous() ? "" : *name;
  SandboxManager manager = ctx.Manager();
  Status quota = ReserveForTenant(*ctx.tenants, manager, ex.caller, tenant_name);
  if (!quota.ok()) return ex.ReplyError(quota);
  std::vector<std::string> args = {"fork", target->first.id + ":" + target->second.id};
  if (ex.caller.anonymous() && !name->empty()) args.insert(args.end(), {"--name", *name});
  auto id = RunSandboxHelper(ctx.self_exe, args);
  if (!id.ok()) {
    ctx.tenants->Cancel(ex.caller, tenant_name);
    return ex.ReplyError(id.status());
  }
  Status saved = ctx.tenants->Commit(ex.caller, *id, tenant_name);
  auto inspect = ctx.Manager().InspectJson(*id);
  if (!saved.ok() || !inspect.ok()) {
    (void)ctx.Manager().Remove(*id, true);
    (void)ctx.tenants->Forget(*id);
    return ex.ReplyError(saved.ok() ? inspect.status() : saved);
  }
  nlohmann::json j = nlohmann::json::parse(*inspect, nullptr, false);
  if (!ex.caller.anonymous() && j.is_object()) j["name"] = ctx.tenants->NameOf(*id);
  ex.Reply(201, "application/json", j.dump(2) + "\n", {{"Location", "/v1/sandboxes/" + *id}});
}

void HandleSessionLog(ServerContext& ctx, Exchange& ex) {
  auto found = FindVisible(ctx, ex.caller, ex.Param("id"));
  if (!found.ok()) return ex.ReplyError(found.status());
  auto text = ctx.Manager().SessionLogText(found->record);
  if (!text.ok()) return ex.ReplyError(text.status());
  ex.Reply(200, "application/x-ndjson", *text);
}

}  // namespace agentbox
