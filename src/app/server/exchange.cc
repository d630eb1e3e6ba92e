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
  auto found = manager.Find(ctx.tenants->Named(caller, ref).value_or(ref));
  if (!found.ok() || !ctx.tenants->Visible(caller, found->record.id)) {
    return NotFound("no sandbox \"" + ref + "\"");
  }
  return found;
}

StatusOr<nlohmann::json> ParseJsonBody(const HttpRequest& request) {
  auto body = ParseJsonWithLimits(request.body);
  if (!body.ok()) return InvalidArgument(body.status().message() + " in the request body");
  if (!body->is_object()) return InvalidArgument("the request body must be a JSON object");
  return body;
}

}  // namespace agentbox
