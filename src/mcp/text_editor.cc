#include "mcp/text_editor.h"

#include <algorithm>
#include <cstdio>

#include "base/utf8.h"

namespace agentbox::mcp {
namespace {

using nlohmann::json;

constexpr const char* kClippedNote =
    "<response clipped><NOTE>To save on context only part of this file has been shown to you. "
    "You should retry this tool after you have searched inside the file with `grep -n` in order "
    "to find the line numbers of what you are looking for.</NOTE>";

// The file's lines as `cat -n` sees them: a final newline ends the last line, it does not
// start an empty one.
std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string Join(const std::vector<std::string>& lines, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to && i < lines.size(); ++i) {
    if (i > from) out += '\n';
    out += lines[i];
  }
  return out;
}

// Python's repr of a two-element list, as the reference's messages print view_range.
std::string RangeText(int64_t a, int64_t b) {
  return "[" + std::to_string(a) + ", " + std::to_string(b) + "]";
}

Status RangeError(const json& range, const std::string& why) {
  return InvalidArgument("Invalid `view_range`: " + range.dump() + ". " + why);
}

bool IsIntegerPair(const json& range) {
  return range.is_array() && range.size() == 2 && range[0].is_number_integer() &&
         range[1].is_number_integer();
}

std::string EditedMessage(const std::string& path, const std::string& snippet_output,
                          const char* advice) {
  return "The file " + path + " has been edited. " + snippet_output + advice;
}

}  // namespace

std::string CatN(std::string_view content, std::string_view descriptor, int64_t first_line,
                 size_t max_characters) {
  const size_t cut = Utf8PrefixBytes(content, max_characters);
  std::string text(content.substr(0, cut));
  if (cut < content.size()) text += kClippedNote;
  std::string out = "Here's the result of running `cat -n` on " + std::string(descriptor) + ":\n";
  std::vector<std::string> lines = Lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    char number[32];
    std::snprintf(number, sizeof(number), "%6lld\t", static_cast<long long>(first_line + i));
    out += number + lines[i] + "\n";
  }
  return SanitizeUtf8(out);
}

StatusOr<std::string> EditorViewFile(std::string_view content, const std::string& path,
                                     const json& view_range, size_t max_characters) {
  if (view_range.is_null()) return CatN(content, path, 1, max_characters);
  if (!IsIntegerPair(view_range)) {
    return InvalidArgument("Invalid `view_range`. It should be a list of two integers.");
  }
  std::vector<std::string> lines = Lines(content);
  const int64_t n = static_cast<int64_t>(lines.size());
  const int64_t first = view_range[0].get<int64_t>(), last = view_range[1].get<int64_t>();
  if (first < 1 || first > n) {
    return RangeError(view_range,
                      "Its first element `" + std::to_string(first) +
                          "` should be within the range of lines of the file: " + RangeText(1, n));
  }
  if (last > n) {
    return RangeError(view_range, "Its second element `" + std::to_string(last) +
                                      "` should be smaller than the number of lines in the "
                                      "file: `" +
                                      std::to_string(n) + "`");
  }
  if (last != -1 && last < first) {
    return RangeError(view_range, "Its second element `" + std::to_string(last) +
                                      "` should be larger or equal than its first `" +
                                      std::to_string(first) + "`");
  }
  const size_t end = last == -1 ? lines.size() : static_cast<size_t>(last);
  return CatN(Join(lines, first - 1, end), path, first, max_characters);
}

std::string EditorViewDirectory(const std::string& path, const std::vector<std::string>& paths) {
  std::string base = path.size() > 1 && path.back() == '/' ? path.substr(0, path.size() - 1) : path;
  std::string out = "Here's the files and directories up to 2 levels deep in " + path +
                    ", excluding hidden items:\n" + base + "\n";
  for (const std::string& p : paths) out += base + "/" + p + "\n";
  return SanitizeUtf8(out);
}

StatusOr<EditorEdit> EditorStrReplace(std::string_view content, const std::string& path,
                                      const std::string& old_str, const std::string& new_str) {
  if (old_str.empty()) {
    return InvalidArgument(
        "No replacement was performed, old_str is empty. Give the exact text "
        "to replace, with enough context to be unique.");
  }
  std::vector<size_t> at;
  for (size_t pos = content.find(old_str); pos != std::string_view::npos;
       pos = content.find(old_str, pos + 1)) {
    at.push_back(pos);
  }
  if (at.empty()) {
    return InvalidArgument("No replacement was performed, old_str `" + old_str +
                           "` did not appear verbatim in " + path + ".");
  }
  if (at.size() > 1) {
    std::string lines;
    for (size_t pos : at) {
      if (!lines.empty()) lines += ", ";
      lines += std::to_string(std::count(content.begin(), content.begin() + pos, '\n') + 1);
    }
    return InvalidArgument("No replacement was performed. Multiple occurrences of old_str `" +
                           old_str + "` in lines [" + lines + "]. Please ensure it is unique");
  }
  EditorEdit edit;
  edit.new_content = std::string(content.substr(0, at[0])) + new_str +
                     std::string(content.substr(at[0] + old_str.size()));
  const int64_t replaced_line = std::count(content.begin(), content.begin() + at[0], '\n');
  const int64_t start = std::max<int64_t>(0, replaced_line - kSnippetLines);
  const int64_t end =
      replaced_line + kSnippetLines + std::count(new_str.begin(), new_str.end(), '\n');
  std::string snippet = Join(Lines(edit.new_content), start, end + 1);
  edit.message = EditedMessage(path, CatN(snippet, "a snippet of " + path, start + 1),
                               "Review the changes and make sure they are as expected. Edit the "
                               "file again if necessary.");
  return edit;
}

StatusOr<EditorEdit> EditorInsert(std::string_view content, const std::string& path,
                                  int64_t insert_line, const std::string& new_str) {
  std::vector<std::string> lines = Lines(content);
  const int64_t n = static_cast<int64_t>(lines.size());
  if (insert_line < 0 || insert_line > n) {
    return InvalidArgument(
        "Invalid `insert_line` parameter: " + std::to_string(insert_line) +
        ". It should be within the range of lines of the file: " + RangeText(0, n));
  }
  std::vector<std::string> inserted =
      new_str.empty() ? std::vector<std::string>{""} : Lines(new_str);
  std::vector<std::string> result(lines.begin(), lines.begin() + insert_line);
  result.insert(result.end(), inserted.begin(), inserted.end());
  result.insert(result.end(), lines.begin() + insert_line, lines.end());
  EditorEdit edit;
  // A file that ended with a newline (or was empty) still does.
  const bool final_newline = content.empty() || content.back() == '\n';
  edit.new_content = Join(result, 0, result.size()) + (final_newline ? "\n" : "");
  const int64_t start = std::max<int64_t>(0, insert_line - kSnippetLines);
  const int64_t end = insert_line + static_cast<int64_t>(inserted.size()) + kSnippetLines;
  edit.message = EditedMessage(
      path, CatN(Join(result, start, end), "a snippet of the edited file", start + 1),
      "Review the changes and make sure they are as expected (correct indentation, no duplicate "
      "lines, etc). Edit the file again if necessary.");
  return edit;
}

std::string EditorPathError(const std::string& path) {
  if (!path.empty() && path[0] == '/') return "";
  return "The path " + path +
         " is not an absolute path, it should start with `/`. Maybe you "
         "meant /workspace/" +
         path + "?";
}

std::string EditorUnknownCommand(const std::string& command) {
  return "Unrecognized command " + command +
         ". The allowed commands for the "
         "str_replace_based_edit_tool tool are: view, create, str_replace, insert";
}

std::string EditorMissingParameter(const std::string& parameter, const std::string& command) {
  return "Parameter `" + parameter + "` is required for command: " + command;
}

std::string EditorCreated(const std::string& path) {
  return "File created successfully at: " + path;
}

std::string EditorFileExists(const std::string& path) {
  return "File already exists at: " + path + ". Cannot overwrite files using command `create`.";
}

std::string EditorNoSuchPath(const std::string& path) {
  return "The path " + path + " does not exist. Please provide a valid path.";
}

std::string EditorDirectoryNotEditable(const std::string& path) {
  return "The path " + path +
         " is a directory and only the `view` command can be used on "
         "directories";
}

}  // namespace agentbox::mcp
