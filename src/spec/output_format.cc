#include "spec/output_format.h"

namespace agentbox {
namespace {

// "CreatedAt" -> "created_at", "ID" -> "id": a '_' before an upper-case letter that follows a
// lower-case one or a digit.
std::string SnakeCase(std::string_view name) {
  std::string out;
  for (size_t k = 0; k < name.size(); ++k) {
    const char c = name[k];
    const bool upper = c >= 'A' && c <= 'Z';
    if (upper && k > 0) {
      const char before = name[k - 1];
      if ((before >= 'a' && before <= 'z') || (before >= '0' && before <= '9')) out += '_';
    }
    out += upper ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

std::string CamelCase(std::string_view key) {
  if (key == "id") return "ID";
  std::string out;
  bool up = true;
  for (char c : key) {
    if (c == '_') {
      up = true;
      continue;
    }
    out += up && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    up = false;
  }
  return out;
}

std::string FieldList(const nlohmann::json& object) {
  std::string list;
  if (!object.is_object()) return list;
  for (const auto& [key, value] : object.items()) {
    list += (list.empty() ? "" : ", ") + ("." + CamelCase(key));
  }
  return list;
}

// ".Policy.Memory" in `object`; "." is the object itself.
StatusOr<const nlohmann::json*> Lookup(std::string_view path, const nlohmann::json& object) {
  if (path == ".") return &object;
  if (!path.starts_with('.')) {
    return InvalidArgument("--format: \"" + std::string(path) + "\" is no field (want .Name)");
  }
  const nlohmann::json* at = &object;
  std::string_view rest = path.substr(1);
  while (!rest.empty()) {
    const size_t dot = rest.find('.');
    const std::string key = SnakeCase(rest.substr(0, dot));
    rest.remove_prefix(dot == std::string_view::npos ? rest.size() : dot + 1);
    if (!at->is_object() || !at->contains(key)) {
      return InvalidArgument("--format: no field " + std::string(path) +
                             " (fields: " + FieldList(*at) + ")");
    }
    at = &(*at)[key];
  }
  return at;
}

std::string Trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return std::string(text);
}

StatusOr<std::string> Action(std::string_view action, const nlohmann::json& object) {
  const std::string text = Trim(action);
  const bool json = text.starts_with("json ");
  AB_ASSIGN_OR_RETURN(const nlohmann::json* value,
                      Lookup(json ? Trim(std::string_view(text).substr(5)) : text, object));
  if (json) return value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (value->is_string()) return value->get<std::string>();
  if (value->is_null()) return std::string();
  return value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The text between actions: \t, \n and \\ as a shell user types them.
std::string Literal(std::string_view text) {
  std::string out;
  for (size_t k = 0; k < text.size(); ++k) {
    if (text[k] == '\\' && k + 1 < text.size()) {
      const char next = text[k + 1];
      if (next == 't' || next == 'n' || next == '\\') {
        out += next == 't' ? '\t' : next == 'n' ? '\n' : '\\';
        ++k;
        continue;
      }
    }
    out += text[k];
  }
  return out;
}

}  // namespace

StatusOr<std::string> RenderFormat(std::string_view format, const nlohmann::json& object) {
  std::string out;
  while (!format.empty()) {
    const size_t open = format.find("{{");
    out += Literal(format.substr(0, open));
    if (open == std::string_view::npos) break;
    const size_t close = format.find("}}", open + 2);
    if (close == std::string_view::npos) {
      return InvalidArgument("--format: \"{{\" without \"}}\"");
    }
    AB_ASSIGN_OR_RETURN(std::string value,
                        Action(format.substr(open + 2, close - open - 2), object));
    out += value;
    format.remove_prefix(close + 2);
  }
  return out;
}

}  // namespace agentbox
