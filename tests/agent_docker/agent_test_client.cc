// agent_test_client: speaks the agent protocol (proto/agent_protocol.h) for tests/agent_docker,
// with the framing code the host itself uses, and prints agentbox's Docker seccomp profile.
//
//   agent_test_client profile                       the profile JSON
//   (policy/seccomp_docker_profile.h) agent_test_client ping SOCK                     prints the
//   answer agent_test_client exec SOCK [--timeout-ms N] [--output-limit N]
//   [--stdin]
//                          [--result FILE] -- ARGV...
//                                                   O/E frames to stdout/stderr, the answer to FILE
//   agent_test_client write SOCK PATH               file content from stdin
//   agent_test_client read SOCK PATH                file content to stdout
//   agent_test_client request SOCK JSON             any request; prints the answer
//
// SOCK is a unix socket path, or "tcp:HOST:PORT" (a pod's agent, tests/kubernetes/agent_tcp.sh)
// with the token in $AGENT_TEST_TOKEN: connected by the host's own ConnectAgent (the hello
// included), and an exec's --stdin then streamed as frames by the host's AgentExec.
//
// Exit status: 0 answered ok:true, 1 answered ok:false, 3 hung up without an answer, 2 usage,
// 4 the agent refused the token.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/agent_client.h"
#include "core/agent_exec.h"
#include "policy/seccomp_docker_profile.h"
#include "proto/agent_hello.h"
#include "proto/agent_protocol.h"
#include "proto/exec_wire.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: agent_test_client profile | ping SOCK | exec SOCK [opts] -- ARGV... | "
               "write SOCK PATH | read SOCK PATH | request SOCK JSON\n");
  return 2;
}

AgentEndpoint EndpointOf(const std::string& address) {
  const char* token = std::getenv("AGENT_TEST_TOKEN");
  return {address, token ? token : ""};
}

UniqueFd Connect(const std::string& address) {
  auto fd = ConnectAgent(EndpointOf(address));
  if (!fd.ok()) {
    std::fprintf(stderr, "agent_test_client: connect %s: %s\n", address.c_str(),
                 fd.status().message().c_str());
    std::exit(fd.status().code() == StatusCode::kPermissionDenied ? 4 : 3);
  }
  return std::move(*fd);
}

// An exec with --stdin over TCP: the host's AgentExec streams stdin as frames.
int ExecOverTcp(const std::string& address, const ExecRequest& request,
                const std::string& result_file) {
  OutputCapture output(request.output_limit, /*forward_fds=*/true);
  auto result = AgentExec(EndpointOf(address), request, output, 0);
  if (!result.ok()) {
    std::fprintf(stderr, "agent_test_client: %s\n", result.status().message().c_str());
    return result.status().code() == StatusCode::kPermissionDenied ? 4 : 3;
  }
  const std::string answer = ExecResultToWire(*result);
  if (result_file.empty()) {
    std::printf("%s\n", answer.c_str());
  } else {
    std::ofstream(result_file) << answer << "\n";
  }
  return 0;
}

// Reads frames until the answer: O and D to stdout, E to stderr. Writes the answer to `result`
// (stdout when empty) and returns the exit status.
int ReadUntilAnswer(int fd, const std::string& result_file) {
  for (;;) {
    auto frame = ReadFrame(fd);
    if (!frame.ok()) {
      std::fprintf(stderr, "agent_test_client: no answer: %s\n", frame.status().message().c_str());
      return 3;
    }
    switch (frame->type) {
      case FrameType::kStdout:
      case FrameType::kData:
        std::fwrite(frame->payload.data(), 1, frame->payload.size(), stdout);
        break;
      case FrameType::kStderr:
        std::fwrite(frame->payload.data(), 1, frame->payload.size(), stderr);
        break;
      case FrameType::kResponse: {
        std::fflush(stdout);
        if (result_file.empty()) {
          std::printf("%s\n", frame->payload.c_str());
        } else {
          std::ofstream(result_file) << frame->payload << "\n";
        }
        auto answer = nlohmann::json::parse(frame->payload, nullptr, false);
        return answer.is_object() && answer.value("ok", false) ? 0 : 1;
      }
      default:
        return 3;
    }
  }
}

int Request(const std::string& sock, const std::string& json) {
  UniqueFd fd = Connect(sock);
  if (!WriteFrame(fd.get(), FrameType::kRequest, json).ok()) return 3;
  return ReadUntilAnswer(fd.get(), "");
}

int Exec(const std::string& sock, const std::vector<std::string>& args) {
  ExecRequest request;
  std::string result_file;
  size_t i = 0;
  for (; i < args.size() && args[i] != "--"; ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : ""; };
    if (a == "--timeout-ms") {
      request.timeout_seconds = std::stod(value()) / 1000;
    } else if (a == "--output-limit") {
      request.output_limit = std::stoull(value());
    } else if (a == "--stdin") {
      request.pass_stdin = true;
    } else if (a == "--result") {
      result_file = value();
    } else {
      return Usage();
    }
  }
  if (i + 1 >= args.size()) return Usage();
  request.argv.assign(args.begin() + static_cast<long>(i) + 1, args.end());
  if (request.pass_stdin && IsTcpAgentAddress(sock)) return ExecOverTcp(sock, request, result_file);
  UniqueFd fd = Connect(sock);
  if (!WriteFrame(fd.get(), FrameType::kRequest, ExecRequestToWire(request),
                  request.pass_stdin ? 0 : -1)
           .ok()) {
    return 3;
  }
  return ReadUntilAnswer(fd.get(), result_file);
}

int Write(const std::string& sock, const std::string& path) {
  std::string data((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  UniqueFd fd = Connect(sock);
  nlohmann::json request = {{"op", "write_file"}, {"path", path}, {"size", data.size()}};
  if (!WriteFrame(fd.get(), FrameType::kRequest, request.dump()).ok()) return 3;
  for (size_t off = 0; off < data.size(); off += kMaxFramePayload) {
    if (!WriteFrame(fd.get(), FrameType::kData,
                    std::string_view(data).substr(off, kMaxFramePayload))
             .ok()) {
      return 3;
    }
  }
  return ReadUntilAnswer(fd.get(), "/dev/stderr");
}

int Main(const std::vector<std::string>& args) {
  if (args.empty()) return Usage();
  if (args[0] == "profile") {
    std::printf("%s\n", DockerSeccompProfileJson().c_str());
    return 0;
  }
  if (args.size() < 2) return Usage();
  const std::string& sock = args[1];
  if (args[0] == "ping") return Request(sock, R"({"op":"ping"})");
  if (args[0] == "exec") return Exec(sock, std::vector<std::string>(args.begin() + 2, args.end()));
  if (args.size() < 3) return Usage();
  if (args[0] == "write") return Write(sock, args[2]);
  if (args[0] == "read") {
    UniqueFd fd = Connect(sock);
    nlohmann::json request = {{"op", "read_file"}, {"path", args[2]}};
    if (!WriteFrame(fd.get(), FrameType::kRequest, request.dump()).ok()) return 3;
    return ReadUntilAnswer(fd.get(), "/dev/stderr");
  }
  if (args[0] == "request") return Request(sock, args[2]);
  return Usage();
}

}  // namespace
}  // namespace agentbox

int main(int argc, char** argv) {
  return agentbox::Main(std::vector<std::string>(argv + 1, argv + argc));
}
