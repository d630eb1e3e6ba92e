// /v1/sandboxes: create (through a single-threaded helper), list, inspect, remove.
#include <nlohmann/json.hpp>

#include "app/server/sandbox_creator.h"
#include "app/server/server_context.h"
#include "core/http/api_bodies.h"

namespace agentbox {
namespace {

nlohmann::json Summary(const SandboxStatus& s) {
  return {{"id", s.record.id},
          {"name", s.record.name},
          {"backend", s.record.backend},
          {"state", SandboxStateName(s.state)},
          {"created_at", s.record.created_at},
          {"workspace", s.record.workspace}};
}

}  // namespace

void HandleListSandboxes(ServerContext& ctx, Exchange& ex) {
  nlohmann::json list = nlohmann::json::array();
  for (const SandboxStatus& s : ctx.Manager().List()) {
    if (ctx.tenants->Visible(ex.caller, s.record.id)) list.push_back(Summary(s));
  }
  ex.ReplyJson(200, {{"sandboxes", list}});
}

void HandleGetSandbox(ServerContext& ctx, Exchange& ex) {
  auto found = FindVisible(ctx, ex.caller, ex.Param("id"));
  if (!found.ok()) return ex.ReplyError(found.status());
  auto inspect = ctx.Manager().InspectJson(found->record.id);
  if (!inspect.ok()) return ex.ReplyError(inspect.status());
  ex.Reply(200, "application/json", *inspect + "\n");
}

void HandleDeleteSandbox(ServerContext& ctx, Exchange& ex) {
  auto found = FindVisible(ctx, ex.caller, ex.Param("id"));
  if (!found.ok()) return ex.ReplyError(found.status());
  const std::string id = found->record.id;
  Status st = ctx.Manager().Remove(id, ex.request.QueryFlag("force"));
  if (!st.ok()) return ex.ReplyError(st);
  (void)ctx.tenants->Forget(id);
  ex.ReplyJson(200, {{"removed", id}});
}

// The report is the answer whether or not every check passed (its "ok" says which); errors are
// for a sandbox that is unknown, dead, or could not run the probe.
void HandleVerifySandbox(ServerContext& ctx, Exchange& ex) {
  auto found = FindVisible(ctx, ex.caller, ex.Param("id"));
  if (!found.ok()) return ex.ReplyError(found.status());
  Status slot = ctx.tenants->StartExec(ex.caller);  // the probe is an exec like any other
  if (!slot.ok()) return ex.ReplyError(slot);
  auto report = ctx.Manager().Verify(found->record.id);
  ctx.tenants->EndExec(ex.caller);
  if (!report.ok()) return ex.ReplyError(report.status());
  ex.Reply(200, "application/json", VerifyReportJson(*report) + "\n");
}

void HandleCreateSandbox(ServerContext& ctx, Exchange& ex) {
  auto json = ParseJsonBody(ex.request);
  if (!json.ok()) return ex.ReplyError(json.status());
  auto body = ParseCreateBody(*json, ex.caller.anonymous());
  if (!body.ok()) return ex.ReplyError(body.status());
  if (!body->name.empty() && ctx.Manager().store().Find(body->name).ok()) {
    return ex.ReplyError(AlreadyExists("a sandbox named \"" + body->name + "\" exists"));
  }
  const StateStore store(ctx.state_root);
  Status quota = ctx.tenants->Reserve(
      ex.caller, [&store](const std::string& id) { return store.Load(id).ok(); });
  if (!quota.ok()) return ex.ReplyError(quota);
  auto id = CreateSandboxInHelper(ctx.self_exe, ctx.state_root, body->policy, body->name);
  if (!id.ok()) {
    ctx.tenants->Cancel(ex.caller);
    return ex.ReplyError(id.status());
  }
  Status saved = ctx.tenants->Commit(ex.caller, *id);
  auto inspect = ctx.Manager().InspectJson(*id);
  if (!saved.ok() || !inspect.ok()) {
    // An owner that cannot be recorded would leave a sandbox no tenant can see or remove.
    (void)ctx.Manager().Remove(*id, true);
    (void)ctx.tenants->Forget(*id);
    return ex.ReplyError(saved.ok() ? inspect.status() : saved);
  }
  ex.Reply(201, "application/json", *inspect + "\n", {{"Location", "/v1/sandboxes/" + *id}});
}

}  // namespace agentbox
