// Libcurl(): Debian's libcurl (package libcurl4), loaded the first time a client needs it.
//
// Why loaded and not linked: every sandboxed command pays for agentbox's start-up, and
// Debian's libcurl.so.4 brings ~40 shared libraries with it (OpenSSL, GnuTLS through librtmp,
// Kerberos, LDAP, SASL, ...); linked, each `agentbox run` loaded them all, 5-70 ms on the
// machines we measured (docs/architecture.md, "Libraries"), where `run` takes ~17 ms. Nor can
// it be linked statically: Debian ships no static Kerberos, SASL or p11-kit, which its libcurl.a
// needs. So only a process that talks HTTP through libcurl (the Docker Engine API client, a
// registry client) maps it, once, and the rest of agentbox never does.
//
// On success: the function table, the same for the life of the process (curl_global_init has
// run). On failure (no libcurl.so.4, or one without a function we call): kUnavailable with one
// line naming the package; later calls return the same.
#pragma once

#ifndef CURL_DISABLE_TYPECHECK
#define CURL_DISABLE_TYPECHECK  // the table calls through pointers, not the checked macros
#endif
#include <curl/curl.h>

#include "base/status.h"

namespace agentbox::httpclient {

struct CurlApi {
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_perform) easy_perform;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
};

StatusOr<const CurlApi*> Libcurl();

}  // namespace agentbox::httpclient
