#include "spec/run_args.h"

#include <cstdlib>

#include "spec/policy_file.h"
#include "spec/units.h"

namespace agentbox {
namespace {

// Flags that set a spec field carry its policy key, so one validation path serves both.
struct RunFlag {
  FlagDef def;
  std::string_view key;  // SpecField key; empty for --policy, --json, --help
};

constexpr RunFlag kRunFlags[] = {
    {{"workspace", 0, "DIR", "host dir mounted read-write at /workspace (created if missing)"},
     "workspace"},
    {{"rootfs", 0, "DIR", "dir used read-only as the sandbox's root"}, "rootfs"},
    {{"backend", 0, "native|docker|kubernetes", "how the sandbox is made"}, "backend"},
    {{"image", 0, "IMAGE", "OCI image for the root (native: from agentbox's image store)"},
     "image"},
    {{"pull", 0, "", "native: first pull --image from its registry when the image store lacks it"},
     ""},
    {{"no-pull", 0, "",
      "docker: an --image the daemon lacks is an error (exit 125), not pulled (serve's way)"},
     ""},
    {{"runtime", 0, "NAME", "OCI runtime for the docker backend (e.g. runsc)"}, "runtime"},
    {{"kubeconfig", 0, "PATH",
      "kubernetes: the kubeconfig file (default: $KUBECONFIG, ~/.kube/config, else the pod's "
      "service account)"},
     ""},
    {{"context", 0, "NAME", "kubernetes: the kubeconfig's context"}, ""},
    {{"namespace", 0, "NS", "kubernetes: the namespace of the sandbox's pod"}, ""},
    {{"policy", 0, "FILE", "JSON policy file; flags override it"}, ""},
    {{"timeout", 0, "SECONDS", "wall-clock limit, fractions allowed; exceeded: exit 124"},
     "timeout"},
    {{"memory", 0, "SIZE", "memory limit, no swap (512M, 2G, bytes)"}, "memory"},
    {{"pids", 0, "N", "max processes/threads alive at once"}, "pids"},
    {{"cpus", 0, "X", "CPU share, fractions allowed"}, "cpus"},
    {{"output-limit", 0, "SIZE", "bytes kept per stream (stdout, stderr)"}, "output_limit"},
    {{"disk-limit", 0, "SIZE|none",
      "bytes the command may add to /workspace (create: over the sandbox's life), refused at "
      "the write"},
     "disk_limit"},
    {{"allow-root-owned-workspace", 0, "",
      "use a non-empty --workspace owned by root: its files become the command's to change"},
     ""},
    {{"allow-host", 0, "PATTERN",
      "open egress to host, host:port, *.domain or IP[/prefix][:port] through agentbox's proxy "
      "(repeatable)"},
     "allow_hosts"},
    {{"env", 'e', "KEY[=VALUE]",
      "add to the environment (repeatable); KEY alone takes its value from agentbox's own "
      "environment (left out when unset there)"},
     "env"},
    {{"cwd", 'w', "DIR", "working directory inside"}, "cwd"},
    {{"stdin", 'i', "", "pass agentbox's stdin to the command (default: /dev/null)"}, ""},
    {{"json", 0, "", "print one JSON result object instead of the command's output"}, ""},
    {{"help", 'h', "", "show this help"}, ""},
};

// The defaults --help and the man page show, taken from SandboxSpec itself (the flag table is
// constexpr; these are not): one string per flag of kRunFlags, "" for none.
std::string DefaultOf(std::string_view name) {
  const SandboxSpec d;
  const Limits& l = d.limits;
  if (name == "workspace") return "a private one, deleted afterwards";
  if (name == "rootfs") return "the host's /usr, /bin, /sbin, /lib* and a generated /etc";
  if (name == "backend") return BackendName(d.backend);
  if (name == "image") return "native: the host's system dirs; docker: " + d.image;
  if (name == "runtime") return "dockerd's default";
  if (name == "context") return "$AGENTBOX_KUBE_CONTEXT, else the current context";
  if (name == "namespace") return "$AGENTBOX_KUBE_NAMESPACE, else the context's";
  if (name == "timeout") return FormatSeconds(l.timeout_seconds);
  if (name == "memory") return FormatSize(l.memory_bytes);
  if (name == "pids") return std::to_string(l.pids);
  if (name == "cpus") return FormatSeconds(l.cpus);
  if (name == "output-limit") return FormatSize(l.output_bytes);
  if (name == "disk-limit") return FormatSize(l.disk_bytes);
  if (name == "cwd") return d.cwd;
  return "";
}

const std::vector<FlagDef>& Defs() {
  static const std::vector<std::string> defaults = [] {
    std::vector<std::string> v;
    for (const RunFlag& f : kRunFlags) v.push_back(DefaultOf(f.def.long_name));
    return v;
  }();
  static const std::vector<FlagDef> defs = [] {
    std::vector<FlagDef> v;
    for (const RunFlag& f : kRunFlags) {
      v.push_back(f.def);
      v.back().default_value = defaults[v.size() - 1];
    }
    return v;
  }();
  return defs;
}

const RunFlag& FlagFor(const FlagDef* def) {
  return kRunFlags[static_cast<size_t>(def - Defs().data())];
}

// Applies one parsed flag; returns true in *stop when parsing must end (--help).
Status ApplyFlag(const ParsedFlag& flag, const EnvLookup& caller_env, RunInvocation* inv,
                 bool* stop) {
  const RunFlag& run_flag = FlagFor(flag.def);
  const std::string_view name = flag.def->long_name;
  if (name == "env" && flag.value.find('=') == std::string::npos) {
    std::optional<std::string> value;
    if (!flag.value.empty() && caller_env) value = caller_env(flag.value);
    if (flag.value.empty()) return InvalidArgument("--env: expected KEY or KEY=VALUE, got \"\"");
    if (!value) return OkStatus();  // as docker: a KEY the caller's environment lacks is left out
    return SetFieldFromText("env", flag.value + "=" + *value, &inv->flags).WithContext("--env");
  }
  if (!run_flag.key.empty()) {
    return SetFieldFromText(run_flag.key, flag.value, &inv->flags)
        .WithContext("--" + std::string(name));
  }
  if (name == "policy") {
    if (flag.value.empty()) return InvalidArgument("--policy: must not be empty");
    inv->policy_path = flag.value;
  } else if (name == "allow-root-owned-workspace") {
    inv->flags.allow_root_owned_workspace = true;
  } else if (name == "stdin") {
    inv->flags.pass_stdin = true;
  } else if (name == "json") {
    inv->json = true;
  } else if (name == "pull") {
    inv->pull = true;
  } else if (name == "no-pull") {
    inv->flags.no_pull = true;
  } else if (name == "kubeconfig" || name == "context" || name == "namespace") {
    if (flag.value.empty())
      return InvalidArgument("--" + std::string(name) + ": must not be empty");
    std::optional<std::string>& field = name == "kubeconfig" ? inv->flags.kubeconfig
                                        : name == "context"  ? inv->flags.kube_context
                                                             : inv->flags.kube_namespace;
    field = flag.value;
  } else if (name == "help") {
    inv->help = true;
    *stop = true;
  }
  return OkStatus();
}

}  // namespace

std::span<const FlagDef> RunFlagDefs() { return Defs(); }

StatusOr<RunInvocation> ParseRunArgs(const std::vector<std::string>& args,
                                     const EnvLookup& caller_env) {
  AB_ASSIGN_OR_RETURN(ParsedArgs parsed, ParseFlags(Defs(), args));
  RunInvocation inv;
  for (const ParsedFlag& flag : parsed.flags) {
    bool stop = false;
    AB_RETURN_IF_ERROR(ApplyFlag(flag, caller_env, &inv, &stop));
    if (stop) return inv;
  }
  if (parsed.rest.empty()) {
    return InvalidArgument("run: no command given (usage: agentbox run [OPTIONS] -- COMMAND)");
  }
  inv.argv = std::move(parsed.rest);
  return inv;
}

StatusOr<CreateInvocation> ParseCreateArgs(const std::vector<std::string>& args,
                                           const EnvLookup& caller_env) {
  CreateInvocation create;
  std::vector<std::string> rest;
  // --name, --ttl and --idle-timeout are the flags run does not have (and serve's --tenant,
  // --tenant-name, --mcp-session).
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag;
    for (const char* own :
         {"--name", "--ttl", "--idle-timeout", "--tenant", "--tenant-name", "--mcp-session"}) {
      if (args[i] == own || args[i].starts_with(std::string(own) + "=")) flag = own;
    }
    if (flag.empty()) {
      rest.push_back(args[i]);
      continue;
    }
    if (args[i] == flag && i + 1 >= args.size()) return InvalidArgument(flag + ": missing value");
    const std::string value = args[i] == flag ? args[++i] : args[i].substr(flag.size() + 1);
    if (value.empty()) return InvalidArgument(flag + ": must not be empty");
    if (flag == "--name") {
      create.name = value;
    } else if (flag == "--tenant") {
      create.tenant = value;
    } else if (flag == "--tenant-name") {
      create.tenant_name = value;
    } else if (flag == "--mcp-session") {
      create.mcp_session = value;
    } else {
      const char* key = flag == "--ttl" ? "ttl" : "idle_timeout";
      AB_RETURN_IF_ERROR(SetFieldFromText(key, value, &create.run.flags).WithContext(flag));
    }
  }
  AB_ASSIGN_OR_RETURN(ParsedArgs parsed, ParseFlags(Defs(), rest));
  for (const ParsedFlag& flag : parsed.flags) {
    bool stop = false;
    AB_RETURN_IF_ERROR(ApplyFlag(flag, caller_env, &create.run, &stop));
    if (stop) return create;
  }
  if (!parsed.rest.empty()) {
    return InvalidArgument("create takes no command (got \"" + parsed.rest[0] +
                           "\"); run commands with `agentbox exec ID -- COMMAND`");
  }
  AB_RETURN_IF_ERROR(RequireUtf8Strings(create.run.flags));
  return create;
}

StatusOr<SandboxSpec> ResolveRunSpec(const RunInvocation& invocation) {
  SpecOverlay policy;
  if (invocation.policy_path) {
    AB_ASSIGN_OR_RETURN(policy, LoadPolicyFile(*invocation.policy_path));
  }
  return MergeSpec(policy, invocation.flags);
}

const CommandHelp& RunHelp() {
  static const CommandHelp help = {
      .name = "run",
      .summary = "run one command in a fresh sandbox",
      .usage = "run [OPTIONS] [--] COMMAND [ARG...]",
      .description =
          "Runs COMMAND in a fresh sandbox: no network (but the hosts of --allow-host, through "
          "agentbox's proxy), read-only root, private /tmp, its own "
          "namespaces, no capabilities, a seccomp filter. Everything it started is killed and "
          "the sandbox removed when it ends. Without --json its stdout and stderr are "
          "agentbox's own, as they come.",
      .flags = Defs(),
      .notes =
          "SIZE: bytes or a number with K, M, G or T (1024-based), e.g. 512M, 1.5G. "
          "SECONDS: fractions and the suffixes ms, s, m, h, d allowed.\n"
          "\n"
          "Exit status: the command's own; 124 timeout; 125 agentbox failed (the command was "
          "not run); 126 not executable; 127 not found; 128+N killed by signal N (137: "
          "OOM).",
      .operands = "command path",
  };
  return help;
}

const CommandHelp& CreateHelp() {
  static const std::vector<FlagDef> flags = [] {
    std::vector<FlagDef> v = {
        {"name", 0, "NAME", "a unique name to use instead of the id"},
        {"ttl", 0, "DURATION|none",
         "the sandbox's lifetime (30m, 8h, 2d): once it has passed, the sandbox is removed as "
         "`rm -f` would",
         "none"},
        {"idle-timeout", 0, "DURATION|none",
         "removed the same way once unused this long: no exec running or ended, no file copied "
         "in or out",
         "none"},
    };
    for (FlagDef def : Defs()) {
      if (def.long_name == "json") def.help = "print the new sandbox as `agentbox inspect` does";
      if (def.long_name == "stdin") def.help = "the agent keeps agentbox's stdin open as its fd 0";
      if (def.long_name == "timeout") def.help = "the default wall-clock limit of each exec";
      if (def.long_name == "output-limit")
        def.help = "the default bytes kept per stream of each exec";
      v.push_back(def);
    }
    return v;
  }();
  static const CommandHelp help = {
      .name = "create",
      .summary = "create a sandbox that outlives this command",
      .usage = "create [OPTIONS] [--name NAME] [--ttl DURATION] [--idle-timeout DURATION]",
      .description =
          "Creates a sandbox that outlives this command and prints its id. The options are those "
          "of `agentbox run`; --timeout, --output-limit, -e and -w become the defaults of each "
          "`agentbox exec`, the others hold for the sandbox as a whole: --disk-limit bounds what "
          "its workspace gains over the sandbox's life.",
      .flags = flags,
      .notes =
          "Exit status: 0 once the sandbox's agent has started; 125 with a one-line reason "
          "(nothing is left behind then).",
  };
  return help;
}

std::optional<std::string> CallerEnvironment(const std::string& key) {
  const char* value = std::getenv(key.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace agentbox
