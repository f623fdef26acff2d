// Protocol Buffers' base-128 varints, as TensorFlow writes them outside protos: the lengths
// of a string tensor's tensor_content, a TensorList's encoded metadata.
#ifndef TENSORACT_BASE_VARINT_H_
#define TENSORACT_BASE_VARINT_H_

#include <cstdint>
#include <string>

namespace tensoract {

void PutVarint64(uint64_t value, std::string* out);

// Reads a varint from [*p, end), advancing *p. False when it is cut short or longer than its
// type allows (10 bytes for 64 bits, 5 for 32).
bool GetVarint64(const char** p, const char* end, uint64_t* value);
bool GetVarint32(const char** p, const char* end, uint32_t* value);

}  // namespace tensoract

#endif  // TENSORACT_BASE_VARINT_H_
