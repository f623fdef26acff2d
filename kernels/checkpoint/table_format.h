// The on-disk pieces of a LevelDB-format table (SSTable), shared by TableBuilder and Table:
// varint and fixed-width integer coding, block handles, the footer, block trailers.
//
//   table   := data block* meta-index block index block footer
//   block   := entry* restart[num_restarts] (fixed32 each) num_restarts (fixed32)
//              then a 5-byte trailer: compression type (1 byte), masked CRC32C (fixed32) of
//              the block and the type byte
//   entry   := varint32 shared_key_bytes, varint32 unshared_key_bytes, varint32 value_bytes,
//              the unshared key bytes, the value
//   index   := a block mapping, per data block, a key >= its last key (and < the next
//              block's first) to the BlockHandle (varint64 offset, varint64 size) of it
//   footer  := meta-index handle, index handle, zero padding to 40 bytes, the 8-byte magic
//              number 0xdb4775248b80fb57 (little-endian): 48 bytes in all
#ifndef TENSORACT_KERNELS_CHECKPOINT_TABLE_FORMAT_H_
#define TENSORACT_KERNELS_CHECKPOINT_TABLE_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace tensoract {
namespace table {

constexpr uint64_t kTableMagicNumber = 0xdb4775248b80fb57ull;
constexpr size_t kBlockTrailerSize = 5;
constexpr size_t kFooterSize = 48;
constexpr size_t kMaxBlockHandleSize = 20;  // two varint64s

enum CompressionType : unsigned char { kNoCompression = 0, kSnappyCompression = 1 };

void PutFixed32(std::string* dst, uint32_t v);
void PutFixed64(std::string* dst, uint64_t v);
void PutVarint32(std::string* dst, uint32_t v);
void PutVarint64(std::string* dst, uint64_t v);
uint32_t DecodeFixed32(const char* p);
uint64_t DecodeFixed64(const char* p);
// Consume a varint from the front of `in`; false when it is truncated or too long.
bool GetVarint32(std::string_view* in, uint32_t* v);
bool GetVarint64(std::string_view* in, uint64_t* v);

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;  // without the trailer
  void EncodeTo(std::string* dst) const;
  bool DecodeFrom(std::string_view* in);
};

}  // namespace table
}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CHECKPOINT_TABLE_FORMAT_H_
