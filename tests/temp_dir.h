// A fresh directory for one test case, removed with everything in it when the case ends.
//
//   testing::TempDir dir;
//   saver.Save(*session, dir / "model.ckpt");   // dir.path is the std::filesystem::path
#ifndef TENSORACT_TESTS_TEMP_DIR_H_
#define TENSORACT_TESTS_TEMP_DIR_H_

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace tensoract {
namespace testing {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static std::atomic<int> counter{0};
    path = std::filesystem::temp_directory_path() /
           ("tensoract_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  // A path inside the directory.
  std::string operator/(const std::string& name) const { return (path / name).string(); }
  std::string File(const std::string& name) const { return *this / name; }
};

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_TEMP_DIR_H_
