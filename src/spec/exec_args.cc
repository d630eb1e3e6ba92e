#include "spec/exec_args.h"

#include "spec/units.h"

namespace agentbox {
namespace {

constexpr FlagDef kExecFlags[] = {
    {"timeout", 0, "SECONDS", "wall-clock limit for this command", "the sandbox's"},
    {"output-limit", 0, "SIZE", "bytes kept per stream", "the sandbox's"},
    {"env", 'e', "KEY[=VALUE]",
     "add to the environment (repeatable); KEY alone takes its value from agentbox's own "
     "environment (left out when unset there)"},
    {"cwd", 'w', "DIR", "working directory inside", "the sandbox's"},
    {"stdin", 'i', "",
     "pass agentbox's stdin to the command (default: /dev/null); with -d: keep its stdin open for "
     "`agentbox send`"},
    {"tty", 't', "",
     "give the command a terminal (a PTY: stdout and stderr merged); with -i type into it, "
     "Ctrl-C included"},
    {"detach", 'd', "",
     "run it in the background: print its process id (p1, ...) and return; no timeout unless "
     "--timeout"},
    {"rollback-on-failure", 0, "",
     "if the command fails (non-zero exit, timeout, signal, OOM), put the workspace back "
     "exactly as it was before it"},
    {"json", 0, "", "print one JSON result object instead of the command's output"},
    {"help", 'h', "", "show this help"},
};

Status ApplyExecFlag(const ParsedFlag& flag, const EnvLookup& caller_env, ExecInvocation& inv) {
  std::string_view name = flag.def->long_name;
  const std::string context = "--" + std::string(name);
  if (name == "env" && !flag.value.empty() && flag.value.find('=') == std::string::npos) {
    // As docker: KEY alone is the caller's KEY, left out when the caller has none.
    std::optional<std::string> value = caller_env ? caller_env(flag.value) : std::nullopt;
    if (value) inv.env.emplace_back(flag.value, *value);
    return OkStatus();
  }
  if (name == "timeout") {
    auto seconds = ParseTimeout(flag.value);
    if (!seconds.ok()) return seconds.status().WithContext(context);
    inv.timeout_seconds = *seconds;
  } else if (name == "output-limit") {
    auto size = ParseSize(flag.value);
    if (!size.ok()) return size.status().WithContext(context);
    inv.output_limit = *size;
  } else if (name == "env") {
    size_t eq = flag.value.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument(context + ": expected KEY or KEY=VALUE, got \"" + flag.value + "\"");
    }
    inv.env.emplace_back(flag.value.substr(0, eq), flag.value.substr(eq + 1));
  } else if (name == "cwd") {
    if (flag.value.empty() || flag.value[0] != '/') {
      return InvalidArgument(context + ": must be an absolute path inside the sandbox");
    }
    inv.cwd = flag.value;
  } else if (name == "stdin") {
    inv.pass_stdin = true;
  } else if (name == "tty") {
    inv.tty = true;
  } else if (name == "detach") {
    inv.detach = true;
  } else if (name == "rollback-on-failure") {
    inv.rollback_on_failure = true;
  } else if (name == "json") {
    inv.json = true;
  } else if (name == "help") {
    inv.help = true;
  }
  return OkStatus();
}

}  // namespace

StatusOr<ExecInvocation> ParseExecArgs(const std::vector<std::string>& args,
                                       const EnvLookup& caller_env) {
  AB_ASSIGN_OR_RETURN(ParsedArgs parsed, ParseFlags(kExecFlags, args));
  ExecInvocation inv;
  for (const ParsedFlag& flag : parsed.flags) {
    AB_RETURN_IF_ERROR(ApplyExecFlag(flag, caller_env, inv));
    if (inv.help) return inv;
  }
  std::vector<std::string>& rest = parsed.rest;
  if (rest.empty()) {
    return InvalidArgument(
        "exec: no sandbox given (usage: agentbox exec [OPTIONS] ID|NAME -- COMMAND)");
  }
  inv.sandbox = rest[0];
  size_t first = rest.size() > 1 && rest[1] == "--" ? 2 : 1;
  inv.argv.assign(rest.begin() + static_cast<long>(first), rest.end());
  if (inv.argv.empty()) return InvalidArgument("exec: no command given after the sandbox");
  if (inv.tty && inv.detach) {
    return InvalidArgument(
        "exec: -t cannot be used with -d (a background process has no terminal)");
  }
  if (inv.rollback_on_failure && (inv.tty || inv.detach)) {
    return InvalidArgument(
        "exec: --rollback-on-failure cannot be used with -t or -d (the workspace is put back "
        "when the command has ended, and a background or terminal command's end is not this "
        "exec's)");
  }
  return inv;
}

const CommandHelp& ExecHelp() {
  static const CommandHelp help = {
      .name = "exec",
      .summary = "run one command in a running sandbox",
      .usage = "exec [OPTIONS] ID|NAME [--] COMMAND [ARG...]",
      .description =
          "Runs COMMAND in a running sandbox (see `agentbox create`). Same exit status and JSON "
          "result as `agentbox run`. Files written in /workspace stay for the next command.\n"
          "\n"
          "With -d it runs in the background until it exits, is killed or the sandbox ends: see "
          "`agentbox ps`, `logs`, `wait`, `kill` and `send`. With -t it runs on a terminal of its "
          "own, of this terminal's size; -it also puts this terminal in raw mode and sends it "
          "every key, so Ctrl-C reaches the command.\n"
          "\n"
          "With --rollback-on-failure a failing command (non-zero exit, timeout, oom, signal) "
          "leaves /workspace exactly as it was: it needs the sandbox to itself (refused while "
          "another command or a background process runs).\n"
          "\n"
          "Ctrl-C (SIGINT), SIGTERM or SIGHUP to agentbox kills the command's whole process tree; "
          "with --json the result is printed all the same (reason \"signaled\", exit 128+N).",
      .flags = kExecFlags,
      .operands = "sandbox command path",
  };
  return help;
}

}  // namespace agentbox
