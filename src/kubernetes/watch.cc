#include "kubernetes/watch.h"

#include <thread>

namespace agentbox::kubernetes {
namespace {

bool Retryable(const Status& s) {
  return s.code() == StatusCode::kUnavailable || s.code() == StatusCode::kResourceExhausted ||
         s.code() == StatusCode::kInternal;
}

std::string VersionOf(const nlohmann::json& object) {
  const auto meta = object.value("metadata", nlohmann::json::object());
  return meta.value("resourceVersion", "");
}

// Seconds a watch request may ask for: the option, cut to what is left before the deadline
// (at least 1: the server reads 0 as its own default); 0 once the deadline has passed.
int RequestSeconds(const WatchOptions& options) {
  if (!options.deadline) return options.timeout_seconds;
  auto left =
      std::chrono::ceil<std::chrono::seconds>(*options.deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return 0;
  return static_cast<int>(std::min<int64_t>(left.count(), options.timeout_seconds));
}

}  // namespace

Status Watch(ApiClient& client, const ResourceKind& kind, const std::string& label_selector,
             const WatchHandlers& handlers, const WatchOptions& options) {
  std::string version;  // "": list first
  int failures = 0;
  auto failed = [&](const Status& s) {
    if (!Retryable(s) || ++failures >= options.max_failures) return true;
    std::this_thread::sleep_for(options.backoff);
    return false;
  };
  for (;;) {
    if (version.empty()) {
      StatusOr<nlohmann::json> list = client.List(kind, label_selector);
      if (!list.ok()) {
        if (failed(list.status())) return list.status();
        continue;
      }
      version = VersionOf(*list);
      if (!handlers.on_list(*list)) return OkStatus();
      if (version.empty()) return Unavailable("kubernetes API: a list without a resourceVersion");
    }
    const int seconds = RequestSeconds(options);
    if (seconds == 0) return Unavailable("the watch reached its deadline");
    int events = 0;
    StatusOr<WatchEnd> end =
        client.WatchOnce(kind, label_selector, version, seconds, [&](const WatchEvent& event) {
          ++events;
          std::string seen = VersionOf(event.object);
          if (!seen.empty()) version = seen;
          return event.type == "BOOKMARK" || handlers.on_event(event);
        });
    if (!end.ok()) {
      if (failed(end.status())) return end.status();
      continue;
    }
    failures = 0;
    if (*end == WatchEnd::kStopped) return OkStatus();
    if (*end == WatchEnd::kGone) version.clear();
    // A server that ends streams at once would have us spin: an empty one waits a little.
    if (*end == WatchEnd::kEnded && events == 0) std::this_thread::sleep_for(options.backoff);
  }
}

}  // namespace agentbox::kubernetes
