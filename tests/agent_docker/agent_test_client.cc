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
// Exit status: 0 answered ok:true, 1 answered ok:false, 3 hung up without an answer, 2 usage.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "policy/seccomp_docker_profile.h"
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

UniqueFd Connect(const std::string& path) {
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (::connect(fd.get(), reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr)) != 0) {
    std::perror(("connect " + path).c_str());
    std::exit(3);
  }
  return fd;
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
