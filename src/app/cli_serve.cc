// `agentbox serve [--listen ...] [--tokens FILE] [--config FILE] ...`: the HTTP API.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <climits>

#include "app/cli.h"
#include "app/server/dispatch.h"
#include "app/server/http_server.h"
#include "app/server/mcp_sessions.h"
#include "app/server/sandbox_creator.h"
#include "http/listen_address.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

constexpr const char* kServeUsage =
    "Usage: agentbox serve [--listen unix:PATH | --listen tcp:HOST:PORT] [--tokens FILE]\n"
    "                      [--config FILE] [--workspace-root DIR] [--allow-host-paths]\n"
    "                      [--insecure-no-auth] [--max-connections N]\n"
    "                      [--access-log FILE|-]\n"
    "\n"
    "Serves the HTTP JSON API (docs/api.md): /v1/sandboxes..., /mcp, /healthz, /metrics.\n"
    "\n"
    "Options:\n"
    "  --listen ADDR   unix:PATH (default unix:<state dir>/agentbox.sock, mode 0600: only\n"
    "                  this user can connect) or tcp:HOST:PORT (port 0: any free one,\n"
    "                  printed on stderr); TCP needs --tokens\n"
    "  --tokens FILE   bearer tokens and tenants: "
    "{\"tokens\":[{\"token\":\"...\",\"tenant\":\"a\",\n"
    "                  \"max_sandboxes\":10,\"max_concurrent_execs\":4}]}\n"
    "  --config FILE   the server config (JSON): defaults and ceilings of every limit a\n"
    "                  caller may ask for, workspace_root, connection caps and timeouts\n"
    "  --workspace-root DIR  a request's \"workspace\" is a NAME: the directory\n"
    "                  DIR/<tenant>/NAME; without it no caller may name a workspace\n"
    "  --allow-host-paths  callers may give absolute host paths as \"workspace\" and\n"
    "                  \"rootfs\": they then reach every host file agentbox can\n"
    "  --insecure-no-auth  TCP on a loopback address without --tokens: every local user\n"
    "                  can then act as you\n"
    "  --max-connections N  clients connected at once (default: what the fd limit\n"
    "                  allows, at most 65536)\n"
    "  --access-log FILE  one JSON line per request (who, what, sandbox, status,\n"
    "                  duration; no tokens, bodies or output) appended to FILE, or to\n"
    "                  stderr with -\n"
    "\n"
    "SIGTERM or SIGINT stops accepting, lets requests finish (10 s), then exits 0.\n";

struct ServeArgs {
  std::string listen;
  std::string tokens;
  std::string config;
  std::string workspace_root;
  std::string access_log;
  bool allow_host_paths = false;
  bool insecure_no_auth = false;
  int max_connections = 0;  // 0: from the config, else from the fd limit
  bool help = false;
};

StatusOr<int> ParseMaxConnections(const std::string& text) {
  int n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > kMaxConnections) {
    return InvalidArgument("--max-connections: want a number from 1 to 65536, got \"" + text +
                           "\"");
  }
  return n;
}

// The value of "--flag VALUE" or "--flag=VALUE" at args[*i], when args[*i] is that flag.
StatusOr<bool> FlagValue(const Args& args, size_t* i, std::string_view flag, std::string* out) {
  const std::string& a = args[*i];
  if (a == flag) {
    if (*i + 1 >= args.size() || args[*i + 1].empty()) {
      return InvalidArgument("serve: " + std::string(flag) + " needs a value");
    }
    *out = args[++*i];
    return true;
  }
  if (a.size() > flag.size() && a.starts_with(flag) && a[flag.size()] == '=') {
    *out = a.substr(flag.size() + 1);
    return true;
  }
  return false;
}

StatusOr<ServeArgs> ParseServeArgs(const Args& args) {
  ServeArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string max;
    if (a == "-h" || a == "--help") {
      out.help = true;
      continue;
    }
    if (a == "--allow-host-paths" || a == "--insecure-no-auth") {
      (a == "--allow-host-paths" ? out.allow_host_paths : out.insecure_no_auth) = true;
      continue;
    }
    bool matched = false;
    for (auto [flag, target] : {std::pair{"--listen", &out.listen},
                                {"--tokens", &out.tokens},
                                {"--config", &out.config},
                                {"--workspace-root", &out.workspace_root},
                                {"--access-log", &out.access_log}}) {
      AB_ASSIGN_OR_RETURN(bool found, FlagValue(args, &i, flag, target));
      matched = matched || found;
      if (found) break;
    }
    if (matched) continue;
    AB_ASSIGN_OR_RETURN(bool found, FlagValue(args, &i, "--max-connections", &max));
    if (!found) return InvalidArgument("serve: unexpected argument \"" + a + "\" (see --help)");
    AB_ASSIGN_OR_RETURN(out.max_connections, ParseMaxConnections(max));
  }
  return out;
}

uint64_t OpenFilesHardLimit() {
  struct rlimit lim;
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_max == RLIM_INFINITY) return 1 << 20;
  return lim.rlim_max;
}

// The config file (if any) over the built-in values, then the flags over both.
Status LoadConfig(const ServeArgs& args, ServerConfig* config) {
  config->limits = TenantLimits::BuiltIn(OpenFilesHardLimit());
  if (!args.config.empty()) {
    AB_ASSIGN_OR_RETURN(std::string text, ReadFileAtMost(args.config, 1 << 20));
    AB_RETURN_IF_ERROR(ParseServerConfig(text, args.config, config));
  }
  if (!args.workspace_root.empty()) config->workspace_root = args.workspace_root;
  if (args.allow_host_paths) config->allow_host_paths = true;
  if (args.max_connections > 0) config->max_connections = args.max_connections;
  if (!args.access_log.empty()) config->access_log = args.access_log;
  return OkStatus();
}

// A workspace root must be a real directory outside the state dir: a workspace there would see
// the agents' sockets and records (docs/security.md).
Status CheckWorkspaceRoot(const std::string& root, const std::string& state_root) {
  if (root.empty()) return OkStatus();
  if (root[0] != '/') return InvalidArgument("--workspace-root: give an absolute path: " + root);
  struct stat st;
  if (::lstat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return InvalidArgument("--workspace-root: " + root + " is not a directory");
  }
  char resolved[PATH_MAX];
  if (::realpath(root.c_str(), resolved) == nullptr) return ErrnoStatus("realpath " + root);
  const std::string real(resolved);
  const std::string state =
      ::realpath(state_root.c_str(), resolved) != nullptr ? std::string(resolved) : state_root;
  auto within = [](const std::string& path, const std::string& dir) {
    return path == dir || path.starts_with(dir == "/" ? dir : dir + "/");
  };
  if (within(real, state) || within(state, real)) {
    return InvalidArgument("--workspace-root: " + root +
                           " holds or is inside the state directory " + state_root);
  }
  return OkStatus();
}

// A TCP listener without tokens lets every local user act as the operator: refused, unless
// the operator says so for a loopback address.
Status CheckAuthentication(const ServeArgs& args, const ListenAddress& address, bool tokens) {
  if (args.insecure_no_auth && (address.unix_socket || tokens)) {
    return InvalidArgument("--insecure-no-auth is only for a TCP listener without --tokens");
  }
  if (address.unix_socket || tokens) return OkStatus();
  if (!IsLoopbackHost(address.host)) {
    return InvalidArgument("refusing to serve on non-loopback " + address.host +
                           " without --tokens: anyone who can reach it could run commands");
  }
  if (!args.insecure_no_auth) {
    return InvalidArgument("refusing to serve on tcp:" + address.host +
                           " without --tokens: every local user could act as you (give "
                           "--tokens FILE, use the unix socket, or say --insecure-no-auth)");
  }
  return OkStatus();
}

// Everything but the listening: config, state dir, tokens, tenant map.
StatusOr<ListenAddress> Configure(const ServeArgs& args, ServerContext* ctx) {
  AB_RETURN_IF_ERROR(LoadConfig(args, &ctx->config));
  AB_ASSIGN_OR_RETURN(StateStore store, StateStore::Open());
  ctx->state_root = store.root();
  if (!ctx->config.access_log.empty()) {
    AB_ASSIGN_OR_RETURN(ctx->access_log, AccessLog::Open(ctx->config.access_log));
  }
  AB_RETURN_IF_ERROR(CheckWorkspaceRoot(ctx->config.workspace_root, ctx->state_root));
  AB_ASSIGN_OR_RETURN(
      ListenAddress address,
      ParseListenAddress(args.listen.empty() ? "unix:" + ctx->state_root + "/agentbox.sock"
                                             : args.listen));
  if (!args.tokens.empty()) {
    AB_ASSIGN_OR_RETURN(ctx->tokens, TokenTable::Load(args.tokens));
  }
  AB_RETURN_IF_ERROR(CheckAuthentication(args, address, ctx->tokens.has_value()));
  ctx->front_door = {.tokens_required = ctx->tokens.has_value(),
                     .unix_socket = address.unix_socket};
  ctx->tenants = std::make_unique<TenantRegistry>(ctx->state_root + "/tenants.json");
  AB_RETURN_IF_ERROR(ctx->tenants->Load());
  SandboxManager manager = ctx->Manager();
  ctx->tenants->Prune([&manager](const std::string& id) { return manager.store().Load(id).ok(); });
  RemoveStalePolicyFiles(ctx->state_root);
  AB_ASSIGN_OR_RETURN(ctx->self_exe, SelfExePath());
  ctx->mcp = std::make_shared<McpSessions>(std::chrono::duration_cast<mcp::SessionClock::duration>(
      std::chrono::duration<double>(ctx->config.mcp_session_idle_timeout_seconds)));
  if (args.insecure_no_auth) {
    WriteStderr("agentbox serve: warning: --insecure-no-auth: tcp:" + address.host +
                " takes requests without a token: every local user can act as you\n");
  }
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
