// File operations of the in-sandbox agent: read_file, write_file, list_dir, stat, mkdir, remove
// and str_replace, exactly as specified in proto/agent_protocol.h, strictly beneath /workspace.
//
// Runs in the agent's per-connection handler, which acts as the sandbox user (a native agent
// switches its fsuid/fsgid to it; a container agent is it), so the kernel checks permissions as
// for that user. Every path is resolved by the kernel beneath workspace_fd (see
// agent/path_beneath.h for why).
//
// Beyond the protocol text: write_file without "mode" keeps an existing regular file's mode
// (else 0644); list_dir adds "truncated":true when a huge directory was cut short to fit one
// frame; stat describes a symlink itself (lstat); mtime is in seconds since the epoch.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace agentbox {

// read_file's max_bytes when the request has none.
inline constexpr uint64_t kDefaultReadMaxBytes = 10u << 20;
// str_replace loads the file whole; larger files are refused with kResourceExhausted.
inline constexpr uint64_t kMaxEditBytes = 10u << 20;

// True for the ops above (the handler routes those requests here).
bool IsFileOp(const std::string& op);

// Serves one file request: for write_file first reads the request's `size` bytes of kData
// frames from conn_fd, for read_file writes kData frames; then writes exactly one kResponse
// frame, {"ok":true,...} or {"ok":false,"code":..,"error":..}. Never throws. workspace_fd is an
// O_PATH|O_DIRECTORY fd of /workspace; conn_fd and workspace_fd stay open.
void HandleFileRequest(int conn_fd, const nlohmann::json& request, int workspace_fd);

}  // namespace agentbox
