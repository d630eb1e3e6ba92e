// Exchange: how a handler answers; and the lookups every handler shares.
#include "app/server/server_context.h"
#include "base/json_limits.h"
#include "http/http_status.h"

namespace agentbox {

void Exchange::Reply(int code, std::string_view content_type, std::string_view body,
                     HeaderList extra) {
  if (!content_type.empty()) extra.emplace_back("Content-Type", std::string(content_type));
  status = code;
  conn.SendResponse(code, extra, body, keep_alive);
}

void Exchange::ReplyJson(int code, const nlohmann::json& body, HeaderList extra) {
  Reply(code, "application/json",
        body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
        std::move(extra));
}

void Exchange::ReplyError(const Status& error) {
  const int code = HttpStatusFor(error);
  // A quota frees up as the tenant's other requests finish: say when to come back (RFC 9110
  // §10.2.3), so a client retries rather than failing, and need not guess how soon.
  HeaderList extra;
  if (code == 429) extra.emplace_back("Retry-After", "1");
  Reply(code, "application/json", ErrorBody(error), std::move(extra));
}

bool Exchange::BeginStream(int code, std::string_view content_type, HeaderList extra) {
  status = code;
  // no-cache and no buffering hints: proxies must pass every event on as it comes.
  HeaderList headers = {{"Content-Type", std::string(content_type)},
                        {"Cache-Control", "no-cache"},
                        {"X-Accel-Buffering", "no"}};
  headers.insert(headers.end(), extra.begin(), extra.end());
  return conn.BeginChunked(code, headers, keep_alive);
}

void Exchange::EndStream() { conn.EndChunked(); }

StatusOr<SandboxStatus> FindVisible(ServerContext& ctx, const Caller& caller,
                                    const std::string& ref) {
  SandboxManager manager = ctx.Manager();
  // A tenant's own name first (tenants.h); then an id or id prefix, which must be its own.
  const std::optional<std::string> named = ctx.tenants->Named(caller, ref);
  auto found = manager.Find(named.value_or(ref));
  if (found.ok() && ctx.tenants->Owns(caller, found->record)) {
    ctx.tenants->Learn(found->record);
    return found;
  }
  // A name this map holds for a sandbox removed through another replica is free again.
  if (named && found.status().code() == StatusCode::kNotFound) (void)ctx.tenants->Forget(*named);
  const Status missing = NotFound("no sandbox \"" + ref + "\"");
  if (caller.anonymous()) return missing;
  // Made through another replica (or this one before a restart on an empty state dir): the
  // cluster knows whose it is (kubernetes: the pod's tenant label). Never another tenant's.
  auto theirs = manager.FindTenantSandbox(caller.tenant, ref);
  if (!theirs.ok()) {
    return theirs.status().code() == StatusCode::kNotFound ? missing : theirs.status();
  }
  ctx.tenants->Learn(theirs->record);
  return theirs;
}

StatusOr<nlohmann::json> ParseJsonBody(const HttpRequest& request) {
  auto body = ParseJsonWithLimits(request.body);
  if (!body.ok()) return InvalidArgument(body.status().message() + " in the request body");
  if (!body->is_object()) return InvalidArgument("the request body must be a JSON object");
  return body;
}

}  // namespace agentbox
