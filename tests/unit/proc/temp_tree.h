// A scratch directory tree under /var/tmp for the tests of the host-side tree passes
// (workspace digest, tree diff, tree sync): made per test, removed after it.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "sys/unique_fd.h"

namespace agentbox {

class TempTree {
 public:
  TempTree() {
    char tmpl[] = "/var/tmp/agentbox-tree-test.XXXXXX";
    if (::mkdtemp(tmpl) != nullptr) root_ = tmpl;
  }
  ~TempTree() {
    if (!root_.empty()) (void)!std::system(("rm -rf '" + root_ + "'").c_str());
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const std::string& root() const { return root_; }
  std::string Path(const std::string& rel) const { return root_ + "/" + rel; }

  void Write(const std::string& rel, const std::string& text) {
    std::ofstream out(Path(rel), std::ios::binary | std::ios::trunc);
    out << text;
    ASSERT_TRUE(out.good()) << rel;
  }
  void Mkdir(const std::string& rel) { ASSERT_EQ(::mkdir(Path(rel).c_str(), 0755), 0) << rel; }
  void Symlink(const std::string& target, const std::string& rel) {
    ASSERT_EQ(::symlink(target.c_str(), Path(rel).c_str()), 0) << rel;
  }
  void Chmod(const std::string& rel, mode_t mode) {
    ASSERT_EQ(::chmod(Path(rel).c_str(), mode), 0) << rel;
  }
  void Rename(const std::string& from, const std::string& to) {
    ASSERT_EQ(::rename(Path(from).c_str(), Path(to).c_str()), 0) << from;
  }
  void Remove(const std::string& rel) {
    (void)!std::system(("rm -rf '" + Path(rel) + "'").c_str());
  }
  UniqueFd Open() const {
    return UniqueFd(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  }

 private:
  std::string root_;
};

}  // namespace agentbox
