// The inputs the fuzzers start from, one folder per target (tests/fuzz/corpus/<target>/):
// well-formed messages of each kind, so that mutations begin inside the formats.
#ifndef TENSORACT_TESTS_FUZZ_SEEDS_H_
#define TENSORACT_TESTS_FUZZ_SEEDS_H_

#include <string>

namespace tensoract {
namespace fuzz {

// Writes seed_<n> files into `corpus_dir`/<target>/ (the folders are created).
void WriteSeeds(const std::string& corpus_dir);

}  // namespace fuzz
}  // namespace tensoract

#endif  // TENSORACT_TESTS_FUZZ_SEEDS_H_
