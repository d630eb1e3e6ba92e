#include "spec/cli_flags.h"

#include <algorithm>

#include "spec/text_wrap.h"

namespace agentbox {
namespace {

const FlagDef* FindLong(std::span<const FlagDef> defs, std::string_view name) {
  for (const FlagDef& def : defs) {
    if (def.long_name == name) return &def;
  }
  return nullptr;
}

const FlagDef* FindShort(std::span<const FlagDef> defs, char name) {
  for (const FlagDef& def : defs) {
    if (def.short_name != 0 && def.short_name == name) return &def;
  }
  return nullptr;
}

std::string Spelling(const FlagDef& def, bool used_short) {
  return used_short ? std::string("-") + def.short_name : "--" + std::string(def.long_name);
}

// Parses the option at args[*i] (which starts with '-'), advancing *i past any separate value.
StatusOr<ParsedFlag> ParseOne(std::span<const FlagDef> defs, const std::vector<std::string>& args,
                              size_t* i) {
  const std::string& arg = args[*i];
  const bool is_long = arg.size() > 2 && arg[1] == '-';
  const FlagDef* def = nullptr;
  std::string inline_value;
  bool has_inline = false;
  if (is_long) {
    const size_t eq = arg.find('=');
    def = FindLong(defs, std::string_view(arg).substr(2, eq == std::string::npos ? eq : eq - 2));
    has_inline = eq != std::string::npos;
    if (has_inline) inline_value = arg.substr(eq + 1);
  } else {
    def = FindShort(defs, arg[1]);
    has_inline = arg.size() > 2;
    if (has_inline) inline_value = arg.substr(2);
  }
  if (def == nullptr || (!is_long && has_inline && def->value_name.empty())) {
    return InvalidArgument("unknown option \"" + arg + "\"");
  }
  const std::string name = Spelling(*def, !is_long);
  if (def->value_name.empty()) {
    if (has_inline) return InvalidArgument("option " + name + " takes no value");
    return ParsedFlag{def, ""};
  }
  if (has_inline) return ParsedFlag{def, inline_value};
  if (*i + 1 >= args.size()) {
    return InvalidArgument("option " + name + " needs a value (" + std::string(def->value_name) +
                           ")");
  }
  ++*i;
  return ParsedFlag{def, args[*i]};
}

// "-it": short flags that take no value, written together (the first one decides: "-xvalue"
// stays a value for a flag that takes one).
bool IsCluster(std::span<const FlagDef> defs, const std::string& arg) {
  if (arg.size() <= 2 || arg[1] == '-') return false;
  const FlagDef* first = FindShort(defs, arg[1]);
  return first != nullptr && first->value_name.empty();
}

}  // namespace

StatusOr<ParsedArgs> ParseFlags(std::span<const FlagDef> defs,
                                const std::vector<std::string>& args) {
  ParsedArgs parsed;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    // "-" alone is an argument by convention (stdin), not an option.
    if (arg.size() < 2 || arg[0] != '-') break;
    if (IsCluster(defs, arg)) {
      for (char c : std::string_view(arg).substr(1)) {
        const FlagDef* def = FindShort(defs, c);
        if (def == nullptr || !def->value_name.empty()) {
          return InvalidArgument("unknown option \"" + arg + "\"");
        }
        parsed.flags.push_back(ParsedFlag{def, ""});
      }
      continue;
    }
    AB_ASSIGN_OR_RETURN(ParsedFlag flag, ParseOne(defs, args, &i));
    parsed.flags.push_back(std::move(flag));
  }
  parsed.rest.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  return parsed;
}

StatusOr<ParsedArgs> ParseFlagsInterspersed(std::span<const FlagDef> defs,
                                            const std::vector<std::string>& args) {
  ParsedArgs all;
  std::vector<std::string> left = args;
  while (true) {
    AB_ASSIGN_OR_RETURN(ParsedArgs part, ParseFlags(defs, left));
    for (ParsedFlag& flag : part.flags) all.flags.push_back(std::move(flag));
    // ParseFlags stopped at an operand (kept first in rest) or after "--" (rest: all operands).
    const size_t consumed = left.size() - part.rest.size();
    const bool after_dashes = consumed > 0 && left[consumed - 1] == "--";
    if (part.rest.empty() || after_dashes) {
      for (std::string& arg : part.rest) all.rest.push_back(std::move(arg));
      return all;
    }
    all.rest.push_back(std::move(part.rest[0]));
    left.assign(part.rest.begin() + 1, part.rest.end());
  }
}

std::string FlagHelpText(const FlagDef& def) {
  std::string text(def.help);
  if (!def.default_value.empty()) text += " (default: " + std::string(def.default_value) + ")";
  return text;
}

std::string FormatFlagHelp(std::span<const FlagDef> defs) {
  // A flag column wider than this puts its help on the next line (GNU style): a single long
  // flag must not push every help text to the right edge.
  constexpr size_t kMaxColumn = 26;
  constexpr size_t kWidth = 80;
  std::vector<std::string> lefts;
  size_t width = 0;
  for (const FlagDef& def : defs) {
    std::string left = def.short_name ? std::string("-") + def.short_name + ", " : "    ";
    left += "--" + std::string(def.long_name);
    if (!def.value_name.empty()) left += " " + std::string(def.value_name);
    if (!def.hidden && left.size() <= kMaxColumn) width = std::max(width, left.size());
    lefts.push_back(std::move(left));
  }
  const size_t column = 2 + width + 3;
  std::string out;
  for (size_t k = 0; k < defs.size(); ++k) {
    if (defs[k].hidden) continue;
    std::string line = "  " + lefts[k];
    if (line.size() + 3 > column) {
      out += line + "\n";
      line.clear();
    }
    line.resize(column, ' ');
    for (const std::string& piece : WrapWords(FlagHelpText(defs[k]), kWidth - column)) {
      out += line + piece + "\n";
      line.assign(column, ' ');
    }
  }
  return out;
}

}  // namespace agentbox
