// /v1/sandboxes/{id}/archive: a file or directory tree of the sandbox's /workspace as a tar
// stream, and a tar stream extracted into it (core/sandbox_archive.h), as docker's
// /containers/{id}/archive. Bounded as the files routes are: 64 MiB each way.
#include <nlohmann/json.hpp>

#include "app/server/server_context.h"
#include "core/sandbox_activity.h"
#include "core/sandbox_archive.h"
#include "http/routes.h"

namespace agentbox {
namespace {

// A body or an answer holds one stream at most this large, in memory (docs/api.md, Memory).
ArchiveLimits ApiArchiveLimits() {
  ArchiveLimits limits;
  limits.max_file_bytes = kMaxFileBody;
  limits.max_total_bytes = kMaxFileBody;
  return limits;
}

StatusOr<SandboxRecord> RunningTarget(ServerContext& ctx, Exchange& ex) {
  AB_ASSIGN_OR_RETURN(SandboxStatus found, FindVisible(ctx, ex.caller, ex.Param("id")));
  if (ex.request.Query("path").empty()) {
    return InvalidArgument("the \"path\" parameter is required");
  }
  if (found.state != SandboxState::kRunning) {
    return Unavailable("sandbox " + found.record.id + " is dead");
  }
  MarkActive(found.record);  // a file operation is a use (the idle timeout)
  return found.record;
}

}  // namespace

void HandleReadArchive(ServerContext& ctx, Exchange& ex) {
  auto record = RunningTarget(ctx, ex);
  if (!record.ok()) return ex.ReplyError(record.status());
  std::string tar;
  auto counts = WriteSandboxArchive(record->agent(), ex.request.Query("path"), ApiArchiveLimits(),
                                    [&tar](std::string_view bytes) {
                                      if (tar.size() + bytes.size() > 2 * kMaxFileBody) {
                                        return ResourceExhausted("the archive is too large");
                                      }
                                      tar.append(bytes);
                                      return OkStatus();
                                    });
  if (!counts.ok()) return ex.ReplyError(counts.status());
  ex.Reply(200, "application/x-tar", tar);
}

void HandleWriteArchive(ServerContext& ctx, Exchange& ex) {
  auto record = RunningTarget(ctx, ex);
  if (!record.ok()) return ex.ReplyError(record.status());
  bool given = false;  // the body, once: it is all there is
  const std::string dir = ex.request.Query("path");
  auto counts =
      ExtractSandboxArchive(record->agent(), dir, ApiArchiveLimits(), [&](std::string* chunk) {
        if (!given) *chunk = ex.request.body;
        given = true;
        return OkStatus();
      });
  if (!counts.ok()) return ex.ReplyError(counts.status());
  ex.ReplyJson(200, {{"path", dir},
                     {"files", counts->files},
                     {"directories", counts->directories},
                     {"bytes", counts->bytes}});
}

}  // namespace agentbox
