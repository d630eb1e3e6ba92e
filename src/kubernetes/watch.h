// Watch(): a list-then-watch of one kind and selector that survives what a real cluster does to
// long watches, as client-go's reflector does: the server ends a stream (timeoutSeconds), so it
// watches again from the last resourceVersion seen (events and BOOKMARKs move it); a version too
// old for the server (410 Gone, as an HTTP status or an ERROR event) lists again, and hands the
// whole new list to on_list so the caller reconciles what it missed; a connection that fails is
// retried after `backoff`, up to max_failures times in a row.
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.h"
#include "kubernetes/api_client.h"

namespace agentbox::kubernetes {

struct WatchHandlers {
  // The List object after every (re)list; false: stop.
  std::function<bool(const nlohmann::json& list)> on_list;
  // Each ADDED, MODIFIED or DELETED event (BOOKMARKs are taken here); false: stop.
  std::function<bool(const WatchEvent& event)> on_event;
};

struct WatchOptions {
  int timeout_seconds = 300;  // asked of the server for each watch request
  int max_failures = 5;       // failed requests in a row before Watch gives up
  std::chrono::milliseconds backoff{1000};
  // When set, no watch request outlives it (each asks the server for at most the time left).
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

// OK once a handler returns false; the last error once max_failures requests in a row failed,
// or at once for an answer that retrying cannot change (kPermissionDenied, kInvalidArgument,
// kNotFound); kUnavailable "the watch reached its deadline" once options.deadline has passed.
Status Watch(ApiClient& client, const ResourceKind& kind, const std::string& label_selector,
             const WatchHandlers& handlers, const WatchOptions& options = {});

}  // namespace agentbox::kubernetes
