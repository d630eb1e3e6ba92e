// The agent's file operations end to end: HandleFileRequest on one end of a socketpair (in a
// thread), the host client functions on the other, a temp dir as /workspace.
#include "agent/file_ops.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "agent/path_beneath.h"
#include "core/agent_files.h"
#include "proto/agent_protocol.h"
#include "sys/unique_fd.h"

namespace agentbox {
namespace {

namespace fs = std::filesystem;

// Every case runs with the kernel's openat2 and again with the walk that stands in for it where
// openat2 is missing (gVisor's runsc), so the file API is proven with both on this host.
class FileOpsTest : public ::testing::TestWithParam<BeneathResolver> {
 protected:
  void SetUp() override {
    SetBeneathResolverForTesting(GetParam());
    char tmpl[] = "/tmp/agentbox-fileops-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    // ws and outside are two levels down, so even "../../x" lands inside root_ should the
    // code under test ever let it through.
    ws_ = root_ / "a" / "ws";
    outside_ = root_ / "a" / "outside";
    fs::create_directories(ws_);
    fs::create_directories(outside_);
    HostWrite(outside_ / "secret", "top secret");
    ws_fd_ = UniqueFd(::open(ws_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(ws_fd_.valid());
  }
  void TearDown() override {
    SetBeneathResolverForTesting(BeneathResolver::kAuto);
    fs::remove_all(root_);
    // Only exists if SymlinkToEtcIsRefused failed: do not leave the host's /etc written.
    std::error_code ignored;
    fs::remove_all("/etc/agentbox-pwned", ignored);
  }

  // Runs client(fd) against a handler that serves one request on the other end.
  template <typename Client>
  auto Serve(Client client) {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    UniqueFd client_fd(sv[0]);
    std::thread agent([this, server = sv[1]] {
      auto frame = ReadFrame(server);
      if (frame.ok()) {
        auto request = nlohmann::json::parse(frame->payload, nullptr, false);
        HandleFileRequest(server, request, ws_fd_.get());
      }
      ::close(server);
    });
    auto result = client(client_fd.get());
    agent.join();
    return result;
  }

  // A raw request (no data frames), for protocol-level checks; returns the response object.
  nlohmann::json Raw(const nlohmann::json& request) {
    return Serve([&](int fd) {
      EXPECT_TRUE(WriteFrame(fd, FrameType::kRequest, request.dump()).ok());
      for (;;) {
        auto frame = ReadFrame(fd);
        if (!frame.ok()) return nlohmann::json();
        if (frame->type == FrameType::kResponse) return nlohmann::json::parse(frame->payload);
      }
    });
  }

  StatusOr<std::string> Read(const std::string& path, uint64_t max = kAgentReadDefaultMaxBytes) {
    return Serve([&](int fd) { return AgentReadFile(fd, path, max); });
  }
  Status Write(const std::string& path, std::string_view data, uint32_t mode = 0644,
               bool parents = false) {
    return Serve([&](int fd) { return AgentWriteFile(fd, path, data, mode, parents); });
  }
  StatusOr<std::vector<AgentDirEntry>> List(const std::string& path) {
    return Serve([&](int fd) { return AgentListDir(fd, path); });
  }
  StatusOr<AgentFileInfo> Stat(const std::string& path) {
    return Serve([&](int fd) { return AgentStat(fd, path); });
  }
  Status Mkdir(const std::string& path, bool parents = false) {
    return Serve([&](int fd) { return AgentMkdir(fd, path, parents); });
  }
  Status Remove(const std::string& path, bool recursive = false) {
    return Serve([&](int fd) { return AgentRemove(fd, path, recursive); });
  }
  Status Replace(const std::string& path, const std::string& old_str, const std::string& new_str) {
    return Serve([&](int fd) { return AgentStrReplace(fd, path, old_str, new_str); });
  }

  static void HostWrite(const fs::path& path, const std::string& data) {
    std::ofstream(path, std::ios::binary) << data;
  }
  static std::string HostRead(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::vector<std::string> WorkspaceNames(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path root_, ws_, outside_;
  UniqueFd ws_fd_;
};

std::string BinaryBlob(size_t size) {
  std::string data(size, '\0');
  for (size_t i = 0; i < size; ++i) data[i] = static_cast<char>((i * 131 + i / 7) & 0xff);
  return data;
}

TEST_P(FileOpsTest, IsFileOp) {
  for (const char* op :
       {"read_file", "write_file", "list_dir", "stat", "mkdir", "remove", "str_replace"}) {
    EXPECT_TRUE(IsFileOp(op)) << op;
  }
  EXPECT_FALSE(IsFileOp("exec"));
  EXPECT_FALSE(IsFileOp("ping"));
}

TEST_P(FileOpsTest, WriteReadRoundTripSpansFrames) {
  std::string data = BinaryBlob(3 * kMaxFramePayload + 17);
  ASSERT_TRUE(Write("/workspace/big.bin", data).ok());
  EXPECT_EQ(HostRead(ws_ / "big.bin"), data);
  auto back = Read("big.bin");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, data);
  EXPECT_EQ(fs::status(ws_ / "big.bin").permissions(), fs::perms(0644));
  ASSERT_TRUE(Write("empty", "").ok());
  EXPECT_EQ(*Read("empty"), "");
}

TEST_P(FileOpsTest, WriteCreatesParentsOnlyWhenAsked) {
  auto missing = Write("a/b/c.txt", "x");
  EXPECT_EQ(missing.code(), StatusCode::kNotFound) << missing.message();
  ASSERT_TRUE(Write("a/b/c.txt", "x", 0600, /*parents=*/true).ok());
  EXPECT_EQ(HostRead(ws_ / "a/b/c.txt"), "x");
  EXPECT_EQ(fs::status(ws_ / "a/b/c.txt").permissions(), fs::perms(0600));
}

TEST_P(FileOpsTest, OverwriteReplacesAtomicallyAndLeavesNoTempFile) {
  ASSERT_TRUE(Write("f.txt", "old content").ok());
  struct stat before;
  ASSERT_EQ(::stat((ws_ / "f.txt").c_str(), &before), 0);
  ASSERT_TRUE(Write("f.txt", "new").ok());
  struct stat after;
  ASSERT_EQ(::stat((ws_ / "f.txt").c_str(), &after), 0);
  EXPECT_NE(before.st_ino, after.st_ino);  // a new inode renamed over, never truncated in place
  EXPECT_EQ(HostRead(ws_ / "f.txt"), "new");
  fs::create_directories(ws_ / "dir");
  EXPECT_EQ(Write("dir", "x").code(), StatusCode::kInvalidArgument);  // rename over a dir
  EXPECT_EQ(WorkspaceNames(ws_), (std::vector<std::string>{"dir", "f.txt"}));
}

TEST_P(FileOpsTest, WriteKeepsExistingModeWhenNoneRequested) {
  HostWrite(ws_ / "run.sh", "#!/bin/sh\n");
  fs::permissions(ws_ / "run.sh", fs::perms(0755));
  auto response = Serve([&](int fd) {
    nlohmann::json request = {{"op", "write_file"}, {"path", "run.sh"}, {"size", 3}};
    EXPECT_TRUE(WriteFrame(fd, FrameType::kRequest, request.dump()).ok());
    EXPECT_TRUE(WriteFrame(fd, FrameType::kData, "abc").ok());
    return nlohmann::json::parse(ReadFrame(fd)->payload);
  });
  EXPECT_EQ(response["ok"], true) << response.dump();
  EXPECT_EQ(HostRead(ws_ / "run.sh"), "abc");
  EXPECT_EQ(fs::status(ws_ / "run.sh").permissions(), fs::perms(0755));
}

TEST_P(FileOpsTest, WriteRefusesSetuidAndSetgid) {
  for (uint32_t mode : {04755u, 02755u}) {
    Status st = Write("suid", "x", mode);
    EXPECT_EQ(st.code(), StatusCode::kPermissionDenied) << st.message();
  }
  EXPECT_EQ(Write("sticky", "x", 01644).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(WorkspaceNames(ws_).empty());
}

TEST_P(FileOpsTest, WriteOverSymlinkReplacesTheLink) {
  fs::create_symlink(outside_ / "secret", ws_ / "abs_link");
  HostWrite(ws_ / "target.txt", "target");
  fs::create_symlink("target.txt", ws_ / "rel_link");
  ASSERT_TRUE(Write("abs_link", "mine").ok());
  ASSERT_TRUE(Write("rel_link", "mine too").ok());
  EXPECT_EQ(HostRead(outside_ / "secret"), "top secret");
  EXPECT_EQ(HostRead(ws_ / "target.txt"), "target");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(ws_ / "abs_link")));
  EXPECT_EQ(HostRead(ws_ / "abs_link"), "mine");
  EXPECT_EQ(HostRead(ws_ / "rel_link"), "mine too");
}

TEST_P(FileOpsTest, ReadRefusesTooLargeNonRegularAndMissing) {
  { std::ofstream big(ws_ / "big"); }
  fs::resize_file(ws_ / "big", 20u << 20);
  auto large = Read("big", 1u << 20);
  EXPECT_EQ(large.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(large.status().message().find("20971520"), std::string::npos)
      << large.status().message();
  fs::create_directories(ws_ / "dir");
  EXPECT_EQ(Read("dir").status().code(), StatusCode::kInvalidArgument);
  ASSERT_EQ(::mkfifo((ws_ / "fifo").c_str(), 0644), 0);
  EXPECT_EQ(Read("fifo").status().code(), StatusCode::kInvalidArgument);  // and does not hang
  EXPECT_EQ(Read("nope").status().code(), StatusCode::kNotFound);
}

TEST_P(FileOpsTest, ListDirSortedWithTypes) {
  HostWrite(ws_ / "b.txt", "12345");
  fs::create_directories(ws_ / "a_dir");
  fs::create_symlink("/etc", ws_ / "c_link");
  ASSERT_EQ(::mkfifo((ws_ / "d_fifo").c_str(), 0644), 0);
  auto entries = List("/workspace");
  ASSERT_TRUE(entries.ok()) << entries.status().message();
  ASSERT_EQ(entries->size(), 4u);
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& e : *entries) got.emplace_back(e.name, e.info.type);
  EXPECT_EQ(got,
            (std::vector<std::pair<std::string, std::string>>{
                {"a_dir", "dir"}, {"b.txt", "file"}, {"c_link", "symlink"}, {"d_fifo", "other"}}));
  EXPECT_EQ((*entries)[1].info.size, 5u);
  EXPECT_GT((*entries)[1].info.mtime, 0);
  EXPECT_EQ(List("b.txt").status().code(), StatusCode::kInvalidArgument);
}

TEST_P(FileOpsTest, StatDescribesEntriesWithoutFollowing) {
  HostWrite(ws_ / "f", "abc");
  fs::permissions(ws_ / "f", fs::perms(0640));
  fs::create_symlink("/etc/passwd", ws_ / "link");
  auto file = Stat("f");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->type, "file");
  EXPECT_EQ(file->size, 3u);
  EXPECT_EQ(file->mode, 0640u);
  EXPECT_EQ(Stat("link")->type, "symlink");
  EXPECT_EQ(Stat("/workspace")->type, "dir");
  EXPECT_EQ(Stat("missing").status().code(), StatusCode::kNotFound);
}

TEST_P(FileOpsTest, Mkdir) {
  ASSERT_TRUE(Mkdir("d").ok());
  EXPECT_TRUE(fs::is_directory(ws_ / "d"));
  EXPECT_EQ(Mkdir("d").code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(Mkdir("x/y/z").code(), StatusCode::kNotFound);
  ASSERT_TRUE(Mkdir("/workspace/x/y/z", /*parents=*/true).ok());
  EXPECT_TRUE(fs::is_directory(ws_ / "x/y/z"));
  EXPECT_TRUE(Mkdir("x/y/z", true).ok());
  EXPECT_EQ(Mkdir("/workspace").code(), StatusCode::kInvalidArgument);
}

TEST_P(FileOpsTest, RemoveFilesAndDirectories) {
  HostWrite(ws_ / "f", "x");
  ASSERT_TRUE(Remove("f").ok());
  EXPECT_FALSE(fs::exists(ws_ / "f"));
  fs::create_directories(ws_ / "empty");
  ASSERT_TRUE(Remove("empty").ok());
  fs::create_directories(ws_ / "tree/a/b");
  HostWrite(ws_ / "tree/a/b/f", "x");
  fs::create_symlink(outside_, ws_ / "tree/a/out_link");
  EXPECT_EQ(Remove("tree").code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(Remove("tree", /*recursive=*/true).ok());
  EXPECT_FALSE(fs::exists(ws_ / "tree"));
  EXPECT_EQ(HostRead(outside_ / "secret"), "top secret");  // the link went, not its target
  EXPECT_EQ(Remove("gone").code(), StatusCode::kNotFound);
}

TEST_P(FileOpsTest, RemoveRefusesWorkspaceItself) {
  HostWrite(ws_ / "keep", "x");
  for (const char* p : {"/workspace", "/workspace/", ".", "sub/.."}) {
    EXPECT_EQ(Remove(p, true).code(), StatusCode::kInvalidArgument) << p;
  }
  EXPECT_TRUE(fs::exists(ws_ / "keep"));
}

TEST_P(FileOpsTest, RemoveSymlinkRemovesTheLinkNotTheTarget) {
  fs::create_symlink(outside_ / "secret", ws_ / "file_link");
  fs::create_symlink(outside_, ws_ / "dir_link");
  ASSERT_TRUE(Remove("file_link").ok());
  ASSERT_TRUE(Remove("dir_link", /*recursive=*/true).ok());
  EXPECT_FALSE(fs::exists(fs::symlink_status(ws_ / "file_link")));
  EXPECT_FALSE(fs::exists(fs::symlink_status(ws_ / "dir_link")));
  EXPECT_EQ(HostRead(outside_ / "secret"), "top secret");
}

TEST_P(FileOpsTest, StrReplaceOnceKeepsMode) {
  HostWrite(ws_ / "x.py", "def f():\n    return 1\n");
  fs::permissions(ws_ / "x.py", fs::perms(0750));
  ASSERT_TRUE(Replace("x.py", "return 1", "return 2").ok());
  EXPECT_EQ(HostRead(ws_ / "x.py"), "def f():\n    return 2\n");
  EXPECT_EQ(fs::status(ws_ / "x.py").permissions(), fs::perms(0750));
  EXPECT_EQ(WorkspaceNames(ws_), (std::vector<std::string>{"x.py"}));
}

TEST_P(FileOpsTest, StrReplaceZeroOccurrences) {
  HostWrite(ws_ / "x.txt", "hello\n");
  Status st = Replace("/workspace/x.txt", "nope", "yes");
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "No replacement was performed, old_str \"nope\" did not appear verbatim in "
            "/workspace/x.txt.");
  EXPECT_EQ(Replace("x.txt", "", "y").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(HostRead(ws_ / "x.txt"), "hello\n");
}

TEST_P(FileOpsTest, StrReplaceMultipleOccurrences) {
  std::string text = "a\nb\nfoo\nc\nd\ne\nfoo and foo\n";
  HostWrite(ws_ / "x.txt", text);
  Status st = Replace("x.txt", "foo", "bar");
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "No replacement was performed. Multiple occurrences of old_str \"foo\" in lines "
            "[3, 7]. Please ensure it is unique");
  EXPECT_EQ(HostRead(ws_ / "x.txt"), text);
}

TEST_P(FileOpsTest, StrReplaceRefusesSymlinkAndOutside) {
  fs::create_symlink(outside_ / "secret", ws_ / "link");
  EXPECT_EQ(Replace("link", "top", "no").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Replace("../outside/secret", "top", "no").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(HostRead(outside_ / "secret"), "top secret");
}

TEST_P(FileOpsTest, EscapingPathsAreRefused) {
  fs::create_directories(ws_ / "a");
  for (const char* p :
       {"../x", "/etc/passwd", "/workspace/../../etc/passwd", "a/../../x", "../outside/secret"}) {
    EXPECT_EQ(Read(p).status().code(), StatusCode::kPermissionDenied) << p;
    EXPECT_EQ(Write(p, "pwned").code(), StatusCode::kPermissionDenied) << p;
    EXPECT_EQ(List(p).status().code(), StatusCode::kPermissionDenied) << p;
    EXPECT_EQ(Stat(p).status().code(), StatusCode::kPermissionDenied) << p;
    EXPECT_EQ(Mkdir(p, true).code(), StatusCode::kPermissionDenied) << p;
    EXPECT_EQ(Remove(p, true).code(), StatusCode::kPermissionDenied) << p;
  }
  EXPECT_EQ(Read("../etc/passwd").status().message(),
            "path \"../etc/passwd\" is outside /workspace");
  EXPECT_FALSE(fs::exists(root_ / "a" / "x"));
  EXPECT_FALSE(fs::exists(root_ / "etc"));
  EXPECT_EQ(HostRead(outside_ / "secret"), "top secret");
}

TEST_P(FileOpsTest, SymlinkToEtcIsRefused) {
  fs::create_symlink("/etc", ws_ / "etc");
  EXPECT_EQ(Read("etc/passwd").status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(Write("etc/agentbox-pwned", "x").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(Write("etc/agentbox-pwned/x", "x", 0644, true).code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(List("etc").status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(Remove("etc/hostname").code(), StatusCode::kPermissionDenied);
  EXPECT_FALSE(fs::exists("/etc/agentbox-pwned"));
}

TEST_P(FileOpsTest, SymlinkUpTwoLevelsIsRefused) {
  fs::create_symlink("../..", ws_ / "up");
  fs::create_symlink("../outside", ws_ / "sib");
  EXPECT_EQ(List("up").status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(Read("sib/secret").status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(Write("sib/new", "x").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(Remove("sib/secret").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(Replace("sib/secret", "top", "no").code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(WorkspaceNames(outside_), (std::vector<std::string>{"secret"}));
}

TEST_P(FileOpsTest, RelativeSymlinkInsideIsAllowed) {
  fs::create_directories(ws_ / "dir");
  HostWrite(ws_ / "dir/f", "inside");
  fs::create_symlink("dir/f", ws_ / "ln");
  fs::create_symlink("dir", ws_ / "d2");
  EXPECT_EQ(*Read("ln"), "inside");
  auto listed = List("d2");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].name, "f");
  ASSERT_TRUE(Write("d2/new", "via link").ok());
  EXPECT_EQ(HostRead(ws_ / "dir/new"), "via link");
}

TEST_P(FileOpsTest, MalformedRequestsAnswerInvalidArgument) {
  for (const nlohmann::json& request :
       {nlohmann::json{{"op", "read_file"}, {"path", 5}},
        nlohmann::json{{"op", "read_file"}, {"path", "x"}, {"max_bytes", -1}},
        nlohmann::json{{"op", "mkdir"}, {"path", "x"}, {"parents", "yes"}},
        nlohmann::json{{"op", "write_file"}, {"path", "x"}},
        nlohmann::json{{"op", "read_file"}, {"path", std::string("a\0b", 3)}},
        nlohmann::json{{"op", "chmod"}, {"path", "x"}}, nlohmann::json::array()}) {
    nlohmann::json response = Raw(request);
    EXPECT_EQ(response.value("ok", true), false) << request.dump();
    EXPECT_EQ(response.value("code", ""), "invalid_argument") << request.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Resolvers, FileOpsTest,
                         ::testing::Values(BeneathResolver::kOpenat2, BeneathResolver::kWalk),
                         [](const auto& param_info) {
                           return param_info.param == BeneathResolver::kWalk ? "Walk" : "Openat2";
                         });

}  // namespace
}  // namespace agentbox
