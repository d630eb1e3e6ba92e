// `agentbox serve [--listen unix:PATH | --listen tcp:HOST:PORT] [--tokens FILE]`: the HTTP API.
#include <unistd.h>

#include <charconv>
#include <climits>

#include "app/cli.h"
#include "app/server/dispatch.h"
#include "app/server/http_server.h"
#include "app/server/mcp_sessions.h"
#include "app/server/sandbox_creator.h"
#include "core/http/listen_address.h"

namespace agentbox {
namespace {

constexpr const char* kServeUsage =
    "Usage: agentbox serve [--listen unix:PATH | --listen tcp:HOST:PORT] [--tokens FILE]\n"
    "                      [--max-connections N]\n"
    "\n"
    "Serves the HTTP JSON API (docs/api.md): /v1/sandboxes..., /mcp, /healthz, /metrics.\n"
    "\n"
    "Options:\n"
    "  --listen ADDR   unix:PATH (default unix:<state dir>/agentbox.sock, mode 0600) or\n"
    "                  tcp:HOST:PORT (port 0: any free one, printed on stderr); a\n"
    "                  non-loopback HOST needs --tokens\n"
    "  --tokens FILE   bearer tokens and tenants: "
    "{\"tokens\":[{\"token\":\"...\",\"tenant\":\"a\",\n"
    "                  \"max_sandboxes\":10,\"max_concurrent_execs\":4}]}\n"
    "  --max-connections N  clients served at once (default: what the fd limit allows, at\n"
    "                  most 1024); more wait in the listen backlog, none is refused\n"
    "\n"
    "SIGTERM or SIGINT stops accepting, lets requests finish (10 s), then exits 0.\n";

struct ServeArgs {
  std::string listen;
  std::string tokens;
  int max_connections = 0;  // 0: from the fd limit
  bool help = false;
};

StatusOr<int> ParseMaxConnections(const std::string& text) {
  int n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > 65536) {
    return InvalidArgument("--max-connections: want a number from 1 to 65536, got \"" + text +
                           "\"");
  }
  return n;
}

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
    } else if (a == "--max-connections" || a.starts_with("--max-connections=")) {
      if (a == "--max-connections" && i + 1 >= args.size()) {
        return InvalidArgument("serve: --max-connections needs a number");
      }
      AB_ASSIGN_OR_RETURN(out.max_connections,
                          ParseMaxConnections(a == "--max-connections" ? args[++i] : a.substr(18)));
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
  RemoveStalePolicyFiles(ctx->state_root);
  AB_ASSIGN_OR_RETURN(ctx->self_exe, SelfExe());
  ctx->mcp = std::make_shared<McpSessions>();
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
  ctx.max_connections = parsed->max_connections;
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
