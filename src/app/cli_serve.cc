// `agentbox serve [--listen ...] [--tokens FILE] [--config FILE] ...`: the HTTP API.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <climits>
#include <optional>

#include "app/cli.h"
#include "app/server/dispatch.h"
#include "app/server/http_server.h"
#include "app/server/mcp_sessions.h"
#include "app/server/sandbox_creator.h"
#include "http/listen_address.h"
#include "sys/file_util.h"
#include "sys/socket_activation.h"

namespace agentbox {
namespace {

constexpr FlagDef kServeFlags[] = {
    {"listen", 0, "ADDR",
     "unix:PATH (mode 0600: only this user can connect) or tcp:HOST:PORT (port 0: any free one, "
     "printed on stderr); TCP needs --tokens",
     "unix:<state dir>/agentbox.sock, or the socket systemd hands over"},
    {"tokens", 0, "FILE",
     "bearer tokens and tenants: {\"tokens\":[{\"token\":\"...\",\"tenant\":\"a\","
     "\"max_sandboxes\":10,\"max_concurrent_execs\":4}]}"},
    {"config", 0, "FILE",
     "the server config (JSON): the default and allowed backends, defaults and ceilings of "
     "every limit a caller may ask for, workspace_root, connection caps and timeouts"},
    {"backend", 0, "native|docker|kubernetes",
     "the backend of every sandbox whose create names none (REST creates, MCP sessions' "
     "sandboxes); wins over the config's \"backend\"",
     "native"},
    {"workspace-root", 0, "DIR",
     "a request's \"workspace\" is a NAME: the directory DIR/<tenant>/NAME; without it no caller "
     "may name a workspace"},
    {"allow-host-paths", 0, "",
     "callers may give absolute host paths as \"workspace\" and \"rootfs\": they then reach "
     "every host file agentbox can"},
    {"insecure-no-auth", 0, "",
     "TCP on a loopback address without --tokens: every local user can then act as you"},
    {"max-connections", 0, "N", "clients connected at once",
     "what the fd limit allows, at most 65536"},
    {"access-log", 0, "FILE|-",
     "one JSON line per request (who, what, sandbox, status, duration; no tokens, bodies or "
     "output) appended to FILE, or to stderr with -"},
    {"help", 'h', "", "show this help"},
};

struct ServeArgs {
  std::string listen;
  std::string tokens;
  std::string config;
  std::string workspace_root;
  std::string access_log;
  std::optional<BackendKind> backend;  // nullopt: the config's, else native
  bool allow_host_paths = false;
  bool insecure_no_auth = false;
  int max_connections = 0;  // 0: from the config, else from the fd limit
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

StatusOr<ServeArgs> ParseServeArgs(const ParsedArgs& parsed) {
  if (!parsed.rest.empty()) {
    return InvalidArgument("serve: unexpected argument \"" + parsed.rest[0] + "\" (see --help)");
  }
  ServeArgs out;
  for (const ParsedFlag& flag : parsed.flags) {
    const std::string_view name = flag.def->long_name;
    if (!flag.def->value_name.empty() && flag.value.empty()) {
      return InvalidArgument("serve: --" + std::string(name) + " needs a value");
    }
    if (name == "listen") out.listen = flag.value;
    if (name == "tokens") out.tokens = flag.value;
    if (name == "config") out.config = flag.value;
    if (name == "workspace-root") out.workspace_root = flag.value;
    if (name == "access-log") out.access_log = flag.value;
    if (name == "backend") {
      StatusOr<BackendKind> kind = ServerBackends::Parse(flag.value);
      if (!kind.ok()) return InvalidArgument("--backend: " + kind.status().message());
      out.backend = *kind;
    }
    if (name == "allow-host-paths") out.allow_host_paths = true;
    if (name == "insecure-no-auth") out.insecure_no_auth = true;
    if (name == "max-connections") {
      AB_ASSIGN_OR_RETURN(out.max_connections, ParseMaxConnections(flag.value));
    }
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
  if (args.backend) config->backends.set_default(*args.backend);
  return config->backends.Check(args.backend ? "--backend" : args.config + ": \"backend\"");
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

// Where to listen: a socket systemd handed over (then --listen is refused: the unit says where),
// else --listen, else the state dir's socket.
StatusOr<ListenAddress> ListenAddressFor(const ServeArgs& args, const std::string& state_root,
                                         std::optional<ActivatedSocket>* activated) {
  AB_ASSIGN_OR_RETURN(*activated, TakeActivatedSocket());
  if (activated->has_value()) {
    if (!args.listen.empty()) {
      return InvalidArgument("--listen with a socket from systemd: the .socket unit says where");
    }
    const ActivatedSocket& socket = **activated;
    return ListenAddress{socket.unix_socket, socket.path, socket.host, socket.port, true};
  }
  return ParseListenAddress(args.listen.empty() ? "unix:" + state_root + "/agentbox.sock"
                                                : args.listen);
}

// Everything but the listening: config, state dir, tokens, tenant map.
StatusOr<ListenAddress> Configure(const ServeArgs& args, ServerContext* ctx,
                                  std::optional<ActivatedSocket>* activated) {
  AB_RETURN_IF_ERROR(LoadConfig(args, &ctx->config));
  AB_ASSIGN_OR_RETURN(StateStore store, StateStore::Open());
  ctx->state_root = store.root();
  if (!ctx->config.access_log.empty()) {
    AB_ASSIGN_OR_RETURN(ctx->access_log, AccessLog::Open(ctx->config.access_log));
  }
  AB_RETURN_IF_ERROR(CheckWorkspaceRoot(ctx->config.workspace_root, ctx->state_root));
  AB_ASSIGN_OR_RETURN(ListenAddress address, ListenAddressFor(args, ctx->state_root, activated));
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

const CommandHelp& ServeHelp() {
  static const CommandHelp help = {
      .name = "serve",
      .summary = "serve the HTTP JSON API (and MCP at /mcp)",
      .usage =
          "serve [--listen unix:PATH | --listen tcp:HOST:PORT] [--tokens FILE] [--config FILE]\n"
          "serve [--backend native|docker|kubernetes]\n"
          "serve [--workspace-root DIR] [--allow-host-paths] [--insecure-no-auth]\n"
          "serve [--max-connections N] [--access-log FILE|-]",
      .description =
          "Serves the HTTP JSON API (docs/api.md): /v1/sandboxes..., /mcp, /healthz, /metrics, "
          "/v1/openapi.json.\n"
          "\n"
          "Started by systemd with a listening socket (socket activation: LISTEN_FDS, as the "
          "agentbox.socket unit does), serve takes that socket instead of making one; it never "
          "unlinks it. A TCP socket handed over needs --tokens as --listen tcp: does.",
      .flags = kServeFlags,
      .notes = "SIGTERM or SIGINT stops accepting, lets requests finish (10 s), then exits 0.",
  };
  return help;
}

int ServeSubcommand(const Args& args) {
  int exit = 0;
  auto flags = ParseOrHelp(ServeHelp(), args, &exit);
  if (!flags) return exit;
  auto parsed = ParseServeArgs(*flags);
  if (!parsed.ok()) return FailWith(parsed.status());
  ServerContext ctx;
  std::optional<ActivatedSocket> activated;
  auto address = Configure(*parsed, &ctx, &activated);
  if (!address.ok()) return FailWith(address.status());
  // Before the first thread: every thread inherits the mask, and only the signalfd sees them.
  Status blocked = BlockStopSignals();
  if (!blocked.ok()) return FailWith(blocked);
  Status served = RunServer(ctx, *address, activated ? std::move(activated->fd) : UniqueFd());
  if (!served.ok()) return FailWith(served);
  return 0;
}

}  // namespace agentbox
