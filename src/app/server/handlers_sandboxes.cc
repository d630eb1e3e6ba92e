// /v1/sandboxes: create (through a single-threaded helper), list, inspect, remove.
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "app/server/sandbox_creator.h"
#include "app/server/server_context.h"
#include "app/server/tenant_census.h"
#include "http/api_bodies.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

// The name the caller knows a sandbox by: its tenant's (tenants.h) or the state store's.
std::string NameFor(ServerContext& ctx, const Caller& caller, const SandboxRecord& record) {
  return caller.anonymous() ? record.name : ctx.tenants->NameFor(record);
}

nlohmann::json Summary(ServerContext& ctx, const Caller& caller, const SandboxStatus& s) {
  return {{"id", s.record.id},
          {"name", NameFor(ctx, caller, s.record)},
          {"backend", BackendName(s.record.backend)},
          {"state", SandboxStateName(s.state)},
          {"created_at", s.record.created_at},
          {"workspace", s.record.workspace}};
}

// What `agentbox inspect` prints, with the caller's name for the sandbox.
StatusOr<std::string> InspectFor(ServerContext& ctx, const Caller& caller,
                                 const SandboxRecord& record) {
  AB_ASSIGN_OR_RETURN(std::string inspect, ctx.Manager().InspectJson(record.id));
  if (caller.anonymous()) return inspect;
  nlohmann::json j = nlohmann::json::parse(inspect, nullptr, false);
  if (!j.is_object()) return inspect;
  j["name"] = ctx.tenants->NameFor(record);
  return j.dump(2);
}

HostPathRules RulesFor(const ServerContext& ctx, const Caller& caller) {
  return {ctx.config.workspace_root,
          caller.anonymous() ? std::string(kAnonymousWorkspaceDir) : caller.tenant,
          ctx.config.allow_host_paths};
}

// A named workspace's directory: its tenant's directory is made here, 0700 (a tenant's files
// are no local user's to read; the sandbox reaches its workspace through its mount, made by
// root); the workspace itself is made by the create helper, as `agentbox create --workspace`
// makes one. One already there must be a directory, not a symlink that would lead the sandbox
// elsewhere.
Status PrepareNamedWorkspace(const std::string& root, const std::string& path) {
  const std::string parent = path.substr(0, path.rfind('/'));
  AB_RETURN_IF_ERROR(MakeDirs(parent, 0700));
  struct stat st;
  for (const std::string& p : {parent, path}) {
    if (::lstat(p.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
      return InvalidArgument("workspace " + p.substr(root.size() + 1) +
                             " is not a directory beneath the workspace root");
    }
  }
  return OkStatus();
}

}  // namespace

void HandleListSandboxes(ServerContext& ctx, Exchange& ex) {
  nlohmann::json list = nlohmann::json::array();
  for (const SandboxStatus& s : ctx.Manager().List()) {
    if (ctx.tenants->Owns(ex.caller, s.record)) list.push_back(Summary(ctx, ex.caller, s));
  }
  ex.ReplyJson(200, {{"sandboxes", list}});
}

void HandleGetSandbox(ServerContext& ctx, Exchange& ex) {
  auto found = FindVisible(ctx, ex.caller, ex.Param("id"));
  if (!found.ok()) return ex.ReplyError(found.status());
  auto inspect = InspectFor(ctx, ex.caller, found->record);
  if (!inspect.ok()) return ex.ReplyError(inspect.status());
  ex.Reply(200, "application/json", *inspect + "\n");
}

void HandleDeleteSandbox(ServerContext& ctx, Exchange& ex) {
  auto found = FindVisible(ctx, ex.caller, ex.Param("id"));
  if (!found.ok()) return ex.ReplyError(found.status());
  const std::string id = found->record.id;
  Status st = ctx.Manager().Remove(id, ex.request.QueryFlag("force"));
  if (st.code() == StatusCode::kFailedPrecondition) {
    st = FailedPrecondition(st.message() + "; DELETE with ?force=true kills them");
  }
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
  const HostPathRules rules = RulesFor(ctx, ex.caller);
  auto body = ParseCreateBody(*json, rules);
  if (!body.ok()) return ex.ReplyError(body.status());
  // The operator's defaults (backend, limits) for what the body leaves out, and its ceilings and
  // allowed backends for the rest.
  if (Status st = ApplyServerDefaults(ctx.config, &body->policy); !st.ok()) {
    return ex.ReplyError(st);
  }
  if (!body->name.empty()) {
    if (Status valid = ValidateSandboxName(body->name); !valid.ok()) return ex.ReplyError(valid);
    // The anonymous caller shares the state store's names with the CLI; a tenant's are its own.
    if (ex.caller.anonymous() && ctx.Manager().store().Find(body->name).ok()) {
      return ex.ReplyError(AlreadyExists("a sandbox named \"" + body->name + "\" exists"));
    }
  }
  if (json->contains("workspace") && !rules.workspace_root.empty() &&
      !(*json)["workspace"].get<std::string>().starts_with('/')) {
    Status ready =
        PrepareNamedWorkspace(rules.workspace_root, body->policy["workspace"].get<std::string>());
    if (!ready.ok()) return ex.ReplyError(ready);
  }
  const std::string tenant_name = ex.caller.anonymous() ? "" : body->name;
  SandboxManager manager = ctx.Manager();
  Status quota = ReserveForTenant(*ctx.tenants, manager, ex.caller, tenant_name);
  if (!quota.ok()) return ex.ReplyError(quota);
  auto id = CreateSandboxInHelper(ctx.self_exe, ctx.state_root, body->policy,
                                  ex.caller.anonymous() ? body->name : "",
                                  {ex.caller.tenant, tenant_name});
  if (!id.ok()) {
    ctx.tenants->Cancel(ex.caller, tenant_name);
    return ex.ReplyError(id.status());
  }
  Status saved = ctx.tenants->Commit(ex.caller, *id, tenant_name);
  SandboxRecord made;
  made.id = *id;
  auto inspect = InspectFor(ctx, ex.caller, made);
  if (!saved.ok() || !inspect.ok()) {
    // An owner that cannot be recorded would leave a sandbox no tenant can see or remove.
    (void)ctx.Manager().Remove(*id, true);
    (void)ctx.tenants->Forget(*id);
    return ex.ReplyError(saved.ok() ? inspect.status() : saved);
  }
  ex.Reply(201, "application/json", *inspect + "\n", {{"Location", "/v1/sandboxes/" + *id}});
}

}  // namespace agentbox
