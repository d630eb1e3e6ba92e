// A scripted HTTP server for the REST client's tests: on a unix socket of its own, it answers
// each connection (the client makes one per call) with what `answer` returns for the request,
// then closes it (so a watch stream ends where its body ends). Every request is kept for the
// test to look at. Not the fake API server of tests/kubernetes/: no state, no Kubernetes.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "httpclient/http_client.h"
#include "sys/file_util.h"
#include "sys/unique_fd.h"

namespace agentbox::kubernetes::testing {

struct SeenRequest {
  std::string method;
  std::string target;  // path and query
  std::string head;    // the request line and headers
  std::string body;
};

// "HTTP/1.1 CODE X\r\n...": a whole response with its body.
inline std::string Answer(int code, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(code) + " X\r\nContent-Type: application/json\r\n" +
         "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}
// A watch stream: no length, the body ends when the connection does.
inline std::string Stream(const std::string& lines) {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n" + lines;
}

class ScriptedApiServer {
 public:
  using Answerer = std::function<std::string(const SeenRequest&, size_t index)>;
  explicit ScriptedApiServer(Answerer answer) : answer_(std::move(answer)) {
    char templ[] = "/tmp/agentbox-k8s-api-XXXXXX";
    dir_ = ::mkdtemp(templ);
    std::string path = dir_ + "/api.sock";
    listener_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    struct sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    if (::bind(listener_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::listen(listener_.get(), 8) != 0) {
      std::abort();
    }
    target_.unix_socket = path;
    target_.base_url = "http://kubernetes";
    target_.peer = "the scripted API server";
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedApiServer() {
    ::shutdown(listener_.get(), SHUT_RDWR);
    thread_.join();
    RemoveTree(dir_);
  }
  const httpclient::HttpTarget& target() const { return target_; }
  std::vector<SeenRequest> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  static bool ReadRequest(int fd, SeenRequest& req) {
    std::string data;
    char buf[4096];
    size_t end;
    while ((end = data.find("\r\n\r\n")) == std::string::npos) {
      ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n <= 0) return false;
      data.append(buf, static_cast<size_t>(n));
    }
    req.head = data.substr(0, end);
    size_t length = 0;
    size_t cl = req.head.find("Content-Length: ");
    if (cl != std::string::npos) length = std::strtoul(req.head.c_str() + cl + 16, nullptr, 10);
    req.body = data.substr(end + 4);
    while (req.body.size() < length) {
      ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n <= 0) return false;
      req.body.append(buf, static_cast<size_t>(n));
    }
    size_t sp1 = req.head.find(' '), sp2 = req.head.find(' ', sp1 + 1);
    req.method = req.head.substr(0, sp1);
    req.target = req.head.substr(sp1 + 1, sp2 - sp1 - 1);
    return true;
  }

  void Serve() {
    for (size_t index = 0;; ++index) {
      UniqueFd conn(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (!conn.valid()) return;
      SeenRequest req;
      if (!ReadRequest(conn.get(), req)) continue;
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(req);
      }
      std::string out = answer_(req, index);
      for (size_t off = 0; off < out.size();) {
        // MSG_NOSIGNAL: a client that stops a watch mid-stream is no SIGPIPE for the test.
        ssize_t n = ::send(conn.get(), out.data() + off, out.size() - off, MSG_NOSIGNAL);
        if (n <= 0) break;
        off += static_cast<size_t>(n);
      }
    }
  }

  Answerer answer_;
  std::string dir_;
  UniqueFd listener_;
  httpclient::HttpTarget target_;
  std::thread thread_;
  std::mutex mu_;
  std::vector<SeenRequest> requests_;
};

}  // namespace agentbox::kubernetes::testing
