// What a peer's bytes reach, as functions of those bytes: the fuzz targets.
//
// Each target takes any bytes and must return (0) without crashing, hanging or tripping a
// sanitizer, whatever they hold. The libFuzzer binaries (tests/fuzz/libfuzzer/, built by
// tests/fuzz/run-fuzzers.sh with clang) call them, and so does fuzz_tests, the ordinary
// ctest binary that replays every input kept in tests/fuzz/corpus/<target>/ (gcc, no
// libFuzzer needed), so an input that once crashed a target stays fixed.
#ifndef TENSORACT_TESTS_FUZZ_FUZZ_TARGETS_H_
#define TENSORACT_TESTS_FUZZ_FUZZ_TARGETS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tensoract {
namespace fuzz {

// A GraphDef, as RegisterGraph and CreateSession receive one: parsed, imported, validated
// and given kernels on a CPU device (ExecutorPlan::Build; Consts decode their values).
int GraphDef(const uint8_t* data, size_t size);
// A TensorProto to a Tensor (Tensor::FromProto), as feeds and Consts are decoded.
int TensorProto(const uint8_t* data, size_t size);
// A control RPC's request (actors/rpc_requests.h): the first byte picks the method, the
// rest is its request's bytes.
int ControlRequest(const uint8_t* data, size_t size);
// The data-plane server's reader: a client that proved the token sends these bytes as
// its requests to a server that has a few tensors (see fuzz_targets.cc), then hangs up.
int DataPlaneServer(const uint8_t* data, size_t size);
// The data-plane client's reply reader: a server that proved the token answers three
// requests with these bytes, then hangs up.
int DataPlaneClient(const uint8_t* data, size_t size);
// A data file an input pipeline reads (kernels/io/readers.h): the first byte picks the
// reader (TFRecord plain or GZIP, fixed-length records with a header), the rest is the
// file, read to its end or its first error.
int RecordFile(const uint8_t* data, size_t size);

struct Target {
  std::string name;  // the corpus folder and the libFuzzer binary (fuzz_<name>)
  int (*run)(const uint8_t* data, size_t size);
};
const std::vector<Target>& Targets();

}  // namespace fuzz
}  // namespace tensoract

#endif  // TENSORACT_TESTS_FUZZ_FUZZ_TARGETS_H_
