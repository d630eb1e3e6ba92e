// The text of Anthropic's text editor tool (str_replace_based_edit_tool), as pure functions
// over a file's content: what `view`, `str_replace` and `insert` answer and what they write.
// Messages follow Anthropic's reference implementation word for word, so a model trained on
// that tool reads ours the same way. Two deliberate differences: tabs are kept (not expanded),
// so old_str copied from a view matches the file; and a file's final newline does not show up
// as an extra empty line.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace agentbox::mcp {

// Lines of a snippet shown around an edit, before and after.
inline constexpr int64_t kSnippetLines = 4;
// Longer views are clipped, with a note telling the model to grep for line numbers.
inline constexpr size_t kMaxEditorResponse = 16000;

struct EditorEdit {
  std::string new_content;
  std::string message;
};

// "Here's the result of running `cat -n` on DESCRIPTOR:\n" and the numbered lines from
// first_line on (6-wide number, a tab, the line). Content past max_characters (counted before
// the numbering, as the reference does) is clipped, with a note saying how to find the rest.
std::string CatN(std::string_view content, std::string_view descriptor, int64_t first_line,
                 size_t max_characters = kMaxEditorResponse);

// `view` of a file; view_range is null or [start, end]. kInvalidArgument holds the message.
// max_characters: the view's clipping limit (the tool's `max_characters`, as in Anthropic's
// text_editor_20250728), counted in characters (UTF-8 code points), never splitting one.
StatusOr<std::string> EditorViewFile(std::string_view content, const std::string& path,
                                     const nlohmann::json& view_range,
                                     size_t max_characters = kMaxEditorResponse);

// `view` of a directory: `paths` are the entries up to 2 levels deep, relative to `path`, sorted,
// hidden ones already left out.
std::string EditorViewDirectory(const std::string& path, const std::vector<std::string>& paths);

StatusOr<EditorEdit> EditorStrReplace(std::string_view content, const std::string& path,
                                      const std::string& old_str, const std::string& new_str);

StatusOr<EditorEdit> EditorInsert(std::string_view content, const std::string& path,
                                  int64_t insert_line, const std::string& new_str);

// Checks before touching the file: an absolute path and a known command. Empty when fine.
std::string EditorPathError(const std::string& path);
std::string EditorUnknownCommand(const std::string& command);
std::string EditorMissingParameter(const std::string& parameter, const std::string& command);
std::string EditorCreated(const std::string& path);
std::string EditorFileExists(const std::string& path);
std::string EditorNoSuchPath(const std::string& path);
std::string EditorDirectoryNotEditable(const std::string& path);

}  // namespace agentbox::mcp
