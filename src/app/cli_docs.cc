// The hidden subcommands the build runs, so that what it installs comes from the same tables
// the binary parses with: `__man` (man pages), `__completion` (shell completion scripts) and
// `__openapi` (the OpenAPI document the SDKs' types are generated from).
#include "app/cli.h"
#include "base/build_info.h"
#include "http/openapi.h"
#include "spec/completion.h"
#include "sys/file_util.h"

namespace agentbox {
namespace {

std::string PageFor(const CommandHelp& help) {
  if (&help == &ProgramHelp()) {
    return FormatManPage(help, kAgentboxVersion, AllCommandHelps());
  }
  return FormatManPage(help, kAgentboxVersion);
}

const CommandHelp* FindHelp(std::string_view name) {
  if (name == "agentbox") return &ProgramHelp();
  for (const CommandHelp* help : AllCommandHelps()) {
    if (help->name == name) return help;
  }
  return nullptr;
}

// Every page into `dir`: agentbox.1 and agentbox-NAME.1.
int WriteAllPages(const std::string& dir) {
  std::vector<const CommandHelp*> pages = {&ProgramHelp()};
  for (const CommandHelp* help : AllCommandHelps()) pages.push_back(help);
  for (const CommandHelp* help : pages) {
    const std::string file =
        dir + "/" + (help == &ProgramHelp() ? "agentbox" : "agentbox-" + std::string(help->name)) +
        ".1";
    if (Status st = WriteFile(file, PageFor(*help), 0644); !st.ok()) return FailWith(st);
  }
  return 0;
}

}  // namespace

int ManSubcommand(const Args& args) {
  if (args.size() == 2 && args[0] == "--all") return WriteAllPages(args[1]);
  if (args.size() != 1) {
    return FailWith(InvalidArgument("usage: agentbox __man COMMAND | __man --all DIR"));
  }
  const CommandHelp* help = FindHelp(args[0]);
  if (help == nullptr) return FailWith(NotFound("no command \"" + args[0] + "\""));
  WriteStdout(PageFor(*help));
  return 0;
}

int CompletionSubcommand(const Args& args) {
  if (args.size() != 1)
    return FailWith(InvalidArgument("usage: agentbox __completion bash|zsh|fish"));
  auto script = FormatCompletion(args[0], AllCommandHelps());
  if (!script.ok()) return FailWith(script.status());
  WriteStdout(*script);
  return 0;
}

int OpenApiSubcommand(const Args& args) {
  if (!args.empty()) return FailWith(InvalidArgument("usage: agentbox __openapi"));
  WriteStdout(OpenApiDocument().dump(2) + "\n");
  return 0;
}

}  // namespace agentbox
