// `agentbox serve [--listen unix:PATH | --listen tcp:HOST:PORT] [--tokens FILE]`: the HTTP API.
#include <unistd.h>

#include <climits>

#include "app/cli.h"
#include "app/server/dispatch.h"
#include "app/server/http_server.h"
#include "core/http/listen_address.h"

namespace agentbox {
namespace {

constexpr const char* kServeUsage =
    "Usage: agentbox serve [--listen unix:PATH | --listen tcp:HOST:PORT] [--tokens FILE]\n"
    "\n"
    "Serves the HTTP JSON API (docs/api.md): /v1/sandboxes..., /mcp, /healthz, /metrics.\n"
    "\n"
    "Options:\n"
    "  --listen ADDR   unix:PATH (default unix:<state dir>/agentbox.sock, mode 0600) or\n"
    "                  tcp:HOST:PORT; a non-loopback HOST needs --tokens\n"
    "  --tokens FILE   bearer tokens and tenants: "
    "{\"tokens\":[{\"token\":\"...\",\"tenant\":\"a\",\n"
    "                  \"max_sandboxes\":10,\"max_concurrent_execs\":4}]}\n"
    "\n"
    "SIGTERM or SIGINT stops accepting, lets requests finish (10 s), then exits 0.\n";

struct ServeArgs {
  std::string listen;
  std::string tokens;
  bool help = false;
};

StatusOr<ServeArgs> ParseServeArgs(const Args& args) {
  ServeArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      out.help = true;
    } else if ((a == "--listen" || a == "--tokens") && i + 1 < args.size()) {
      (a == "--listen" ? out.listen : out.tokens) = args[++i];
    } else if (a.starts_with("--listen=")) {
      out.listen = a.substr(9);
    } else if (a.starts_with("--tokens=")) {
      out.tokens = a.substr(9);
    } else {
      return InvalidArgument("serve: unexpected argument \"" + a + "\" (see --help)");
    }
  }
  return out;
}

StatusOr<std::string> SelfExe() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ErrnoStatus("readlink /proc/self/exe");
  return std::string(buf, static_cast<size_t>(n));
}

// Everything but the listening: state dir, tokens, tenant map.
StatusOr<ListenAddress> Configure(const ServeArgs& args, ServerContext* ctx) {
  AB_ASSIGN_OR_RETURN(StateStore store, StateStore::Open());
  ctx->state_root = store.root();
  AB_ASSIGN_OR_RETURN(
      ListenAddress address,
      ParseListenAddress(args.listen.empty() ? "unix:" + ctx->state_root + "/agentbox.sock"
                                             : args.listen));
  if (!args.tokens.empty()) {
    AB_ASSIGN_OR_RETURN(ctx->tokens, TokenTable::Load(args.tokens));
  }
  if (!address.unix_socket && !IsLoopbackHost(address.host) && !ctx->tokens) {
    return InvalidArgument("refusing to serve on non-loopback " + address.host +
                           " without --tokens: anyone who can reach it could run commands");
  }
  ctx->tenants = std::make_unique<TenantRegistry>(ctx->state_root + "/tenants.json");
  AB_RETURN_IF_ERROR(ctx->tenants->Load());
  SandboxManager manager = ctx->Manager();
  ctx->tenants->Prune([&manager](const std::string& id) { return manager.store().Load(id).ok(); });
  AB_ASSIGN_OR_RETURN(ctx->self_exe, SelfExe());
  ctx->mcp = MakeMcpSessions();
  return address;
}

}  // namespace

int ServeSubcommand(const Args& args) {
  auto parsed = ParseServeArgs(args);
  if (!parsed.ok()) return FailWith(parsed.status());
  if (parsed->help) {
    WriteStdout(kServeUsage);
    return 0;
  }
  ServerContext ctx;
  auto address = Configure(*parsed, &ctx);
  if (!address.ok()) return FailWith(address.status());
  // Before the first thread: every thread inherits the mask, and only the signalfd sees them.
  Status blocked = BlockStopSignals();
  if (!blocked.ok()) return FailWith(blocked);
  Status served = RunServer(ctx, *address);
  if (!served.ok()) return FailWith(served);
  return 0;
}

}  // namespace agentbox
