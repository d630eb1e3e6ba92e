// A fake cgroupfs for unit tests: plain directories and files under a fresh temp dir, plus a
// CgroupFiles that records every write in order.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "proc/cgroup_internal.h"

namespace agentbox::testing {

class FakeCgroupFs {
 public:
  FakeCgroupFs() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "abcg.XXXXXX").string();
    root_ = ::mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~FakeCgroupFs() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  const std::string& root() const { return root_; }

  // Creates `rel` (and parents) under the root holding `content`.
  std::string Put(const std::string& rel, const std::string& content = "") {
    std::filesystem::path p = std::filesystem::path(root_) / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << content;
    return p.string();
  }
  std::string Get(const std::string& rel) const {
    std::ifstream in(std::filesystem::path(root_) / rel);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  bool Exists(const std::string& rel) const {
    return std::filesystem::exists(std::filesystem::path(root_) / rel);
  }
  // Deletes the plain files a real cgroupfs would drop with the directory.
  void ClearFiles(const std::string& rel) {
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(root_) / rel)) {
      if (e.is_regular_file()) std::filesystem::remove(e.path());
    }
  }

 private:
  std::string root_;
};

// Records (path, data) of every write, then performs it.
class RecordingFiles : public cgroup_internal::CgroupFiles {
 public:
  Status Write(const std::string& path, std::string_view data) override {
    writes.emplace_back(path, std::string(data));
    return CgroupFiles::Write(path, data);
  }
  std::vector<std::pair<std::string, std::string>> writes;
};

}  // namespace agentbox::testing
