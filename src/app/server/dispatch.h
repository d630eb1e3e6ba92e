// From a request head to its handler: the checks made on the event loop before the body is read
// (route, front door, token), and the handler run on a worker thread once it is.
#pragma once

#include <variant>

#include "app/server/server_context.h"

namespace agentbox {

// A request that may go on: its route and who sends it.
struct Admitted {
  RouteMatch match;
  Caller caller;
};

// A request refused from its head alone; the connection closes after the answer (its body, if
// any, is not read).
struct Rejection {
  int status;
  Status why;
  HeaderList headers;
};

// Route (404 / 405), front door (Host, Origin, the body's presence and type: 400 / 403 / 415),
// bearer token (401) and the announced body size (413). Cheap and non-blocking: runs on the
// event loop.
std::variant<Admitted, Rejection> AdmitRequest(const ServerContext& ctx, const HttpRequest& req);

// True for the requests that may run for as long as a command does (an exec, an MCP POST that
// calls a tool, a verify probe, following a background process's logs or waiting for it): they have
// a worker pool of their own, so that the short ones (a notifications/cancelled among them) never
// wait behind them.
bool RunsLong(const HttpRequest& req, const Route& route);

// Runs the request's handler on the calling (worker) thread, answering on `fd`. True when the
// connection may carry another request.
bool RunHandler(ServerContext& ctx, int fd, const HttpRequest& req, const Admitted& admitted);

// The JSON error body and headers of an answer the event loop writes itself.
std::string ErrorResponse(int status, const Status& why, HeaderList headers, bool keep_alive);

}  // namespace agentbox
