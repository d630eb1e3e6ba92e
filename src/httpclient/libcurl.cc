#include "httpclient/libcurl.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace agentbox::httpclient {
namespace {

constexpr const char* kSoname = "libcurl.so.4";

template <typename Fn>
bool Resolve(void* lib, const char* name, Fn& out) {
  out = reinterpret_cast<Fn>(::dlsym(lib, name));
  return out != nullptr;
}

StatusOr<const CurlApi*> Load() {
  // RTLD_LOCAL: its symbols (OpenSSL's among them) stay out of the global namespace.
  void* lib = ::dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    return Unavailable(std::string("libcurl is needed here and could not be loaded (install "
                                   "Debian's libcurl4): ") +
                       (why ? why : kSoname));
  }
  static CurlApi api;
  decltype(&::curl_global_init) global_init = nullptr;
  bool ok = Resolve(lib, "curl_global_init", global_init) &&
            Resolve(lib, "curl_easy_init", api.easy_init) &&
            Resolve(lib, "curl_easy_cleanup", api.easy_cleanup) &&
            Resolve(lib, "curl_easy_setopt", api.easy_setopt) &&
            Resolve(lib, "curl_easy_perform", api.easy_perform) &&
            Resolve(lib, "curl_easy_getinfo", api.easy_getinfo) &&
            Resolve(lib, "curl_easy_strerror", api.easy_strerror) &&
            Resolve(lib, "curl_slist_append", api.slist_append) &&
            Resolve(lib, "curl_slist_free_all", api.slist_free_all);
  if (!ok) return Unavailable(std::string(kSoname) + " lacks a function agentbox calls");
  // Once, before any handle exists and before a second thread could use one.
  if (CURLcode rc = global_init(CURL_GLOBAL_DEFAULT); rc != CURLE_OK) {
    return Unavailable("libcurl failed to initialise: " + std::string(api.easy_strerror(rc)));
  }
  return &api;
}

}  // namespace

StatusOr<const CurlApi*> Libcurl() {
  static std::once_flag once;
  static StatusOr<const CurlApi*> loaded = Unavailable("libcurl not loaded");
  std::call_once(once, [] { loaded = Load(); });
  return loaded;
}

}  // namespace agentbox::httpclient
