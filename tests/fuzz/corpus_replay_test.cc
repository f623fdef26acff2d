// Every input kept in tests/fuzz/corpus/<target>/ (the seeds, and each input that once
// crashed or hung a target, after its fix) through its target, as the fuzzers ran it.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <catch2/catch.hpp>

#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/seeds.h"

namespace fs = std::filesystem;

namespace tensoract {
namespace {

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST_CASE("every kept input runs through its fuzz target", "[fuzz]") {
  const fs::path corpus = TENSORACT_FUZZ_CORPUS;
  for (const fuzz::Target& target : fuzz::Targets()) {
    const fs::path dir = corpus / target.name;
    REQUIRE(fs::is_directory(dir));
    int inputs = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string bytes = ReadFile(entry.path());
      INFO(target.name << ": " << entry.path().filename().string() << " (" << bytes.size() << " bytes)");
      CHECK(target.run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()) == 0);
      ++inputs;
    }
    INFO(target.name);
    CHECK(inputs > 0);
  }
}

// The seeds are what the fuzzers start from: `fuzz_tests "[.write_seeds]"` (re)writes them.
TEST_CASE("write the fuzzers' seed inputs", "[.write_seeds]") {
  fuzz::WriteSeeds(TENSORACT_FUZZ_CORPUS);
}

}  // namespace
}  // namespace tensoract
