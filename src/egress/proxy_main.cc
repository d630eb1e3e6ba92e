#include "egress/proxy_main.h"

#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "egress/proxy.h"
#include "proto/agent_hello.h"
#include "spec/units.h"
#include "sys/file_util.h"

namespace agentbox::egress {
namespace {

struct Options {
  std::vector<std::string> allow;
  ProxyLimits limits;
  bool listening = false;
  int watch_fd = -1;
  int relay_dir_fd = -1;
  std::string relay_tcp;  // kubernetes: the pod's agent, "tcp:HOST:PORT"
  int relay_token_fd = -1;
};

StatusOr<Options> ParseOptions(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--listening") {
      o.listening = true;
      continue;
    }
    if (i + 1 >= args.size()) return InvalidArgument(a + ": missing value");
    const std::string& v = args[++i];
    if (a == "--allow") {
      o.allow.push_back(v);
    } else if (a == "--connections") {
      AB_ASSIGN_OR_RETURN(o.limits.connections_per_exec, ParseCount(v));
    } else if (a == "--bytes") {
      AB_ASSIGN_OR_RETURN(o.limits.bytes_per_exec, ParseCount(v));
    } else if (a == "--watch-fd") {
      AB_ASSIGN_OR_RETURN(uint64_t fd, ParseCount(v));
      o.watch_fd = static_cast<int>(fd);
    } else if (a == "--relay-tcp") {
      o.relay_tcp = v;
    } else if (a == "--relay-token-fd") {
      AB_ASSIGN_OR_RETURN(uint64_t fd, ParseCount(v));
      o.relay_token_fd = static_cast<int>(fd);
    } else if (a == "--relay-dir-fd") {
      AB_ASSIGN_OR_RETURN(uint64_t fd, ParseCount(v));
      o.relay_dir_fd = static_cast<int>(fd);
    } else {
      return InvalidArgument("unknown option " + a);
    }
  }
  if (o.relay_tcp.empty() != (o.relay_token_fd < 0)) {
    return InvalidArgument("--relay-tcp and --relay-token-fd go together");
  }
  return o;
}

// The sandbox's token, from the pipe the host wrote it to (never an argument: a command line is
// anyone's to read in /proc).
StatusOr<std::string> ReadRelayToken(int fd) {
  std::string token;
  char buf[512];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus("read the egress relay's token");
    if (n == 0) break;
    token.append(buf, static_cast<size_t>(n));
    if (token.size() > kAgentTokenMaxBytes) return InvalidArgument("the relay's token is too long");
  }
  ::close(fd);
  return CheckAgentToken(token);
}

Status ReadHostsOverride(std::string* text) {
  const char* path = std::getenv(kEgressHostsFileEnv);
  if (path == nullptr || *path == '\0') return OkStatus();
  StatusOr<std::string> content = ReadFileAtMost(path, 1 << 20);
  if (!content.ok()) return content.status();
  *text = std::move(*content);
  return OkStatus();
}

// Root is needed for nothing the proxy does: it resolves, connects and relays.
Status DropPrivileges(const ProxyLimits& limits) {
  // Four fds a connection (client, upstream, and their epoll slots' worth of slack) for every
  // exec's connections, bounded by kMaxExecs; the resolver and control need a few more.
  const rlim_t fds =
      static_cast<rlim_t>(std::min<uint64_t>(limits.connections_per_exec * 4 + 64, 65536));
  struct rlimit nofile = {fds, fds};
  if (::setrlimit(RLIMIT_NOFILE, &nofile) != 0) return ErrnoStatus("setrlimit NOFILE");
  struct rlimit core = {0, 0};
  ::setrlimit(RLIMIT_CORE, &core);
  if (::geteuid() == 0) {
    if (::setgroups(0, nullptr) != 0 ||
        ::setresgid(kEgressProxyHostId, kEgressProxyHostId, kEgressProxyHostId) != 0 ||
        ::setresuid(kEgressProxyHostId, kEgressProxyHostId, kEgressProxyHostId) != 0) {
      return ErrnoStatus("drop to the proxy's own id");
    }
  }
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capset, &header, data) != 0) return ErrnoStatus("capset");
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return ErrnoStatus("no_new_privs");
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  return OkStatus();
}

}  // namespace

int EgressProxyMain(const std::vector<std::string>& args) {
  ::signal(SIGPIPE, SIG_IGN);
  auto options = ParseOptions(args);
  if (!options.ok()) {
    std::fprintf(stderr, "agentbox egress-proxy: %s\n", options.status().message().c_str());
    return 2;
  }
  auto rules = EgressRules::FromPatterns(options->allow);
  std::string hosts;
  Status st = rules.ok() ? ReadHostsOverride(&hosts) : rules.status();
  std::string relay_token;
  if (st.ok() && options->relay_token_fd >= 0) {
    auto token = ReadRelayToken(options->relay_token_fd);
    st = token.status();
    if (token.ok()) relay_token = std::move(*token);
  }
  if (st.ok()) st = DropPrivileges(options->limits);
  if (st.ok()) {
    Proxy proxy(std::move(*rules), options->limits);
    proxy.SetHostsOverride(hosts);
    if (!options->relay_tcp.empty()) proxy.SetRelayTcp(options->relay_tcp, relay_token);
    if (options->relay_dir_fd >= 0) {
      st = proxy.SetRelayDir(options->relay_dir_fd);
      ::close(options->relay_dir_fd);
    }
    if (st.ok()) st = proxy.Run(UniqueFd(3), options->listening, options->watch_fd);
  }
  if (!st.ok()) {
    std::fprintf(stderr, "agentbox egress-proxy: %s\n", st.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace agentbox::egress
