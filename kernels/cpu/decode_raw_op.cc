// DecodeRaw on the CPU: each string's bytes reinterpreted as out_type elements (swapped
// when the data's byte order is not the machine's). Every string must hold the same whole
// number of elements, as TensorFlow requires.
#include <algorithm>
#include <cstring>

#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

class DecodeRawOp : public OpKernel {
 public:
  explicit DecodeRawOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("out_type", &out_type_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("little_endian", &little_endian_));
    OP_REQUIRES(ctx, DataTypeIsFixedSize(out_type_),
                errors::InvalidArgument("node '", name(), "': DecodeRaw cannot produce ", DataTypeString(out_type_)));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const auto* strings = in.base<std::string>();
    const int64_t n = in.NumElements();
    const size_t size = DataTypeSize(out_type_);
    const size_t bytes = n > 0 ? strings[0].size() : 0;
    OP_REQUIRES(ctx, bytes % size == 0,
                errors::InvalidArgument("Input to DecodeRaw has length ", bytes, " that is not a multiple of ", size,
                                        ", the size of ", DataTypeString(out_type_)));
    for (int64_t i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, strings[i].size() == bytes,
                  errors::InvalidArgument("DecodeRaw requires input strings to all be the same size, but element ", i,
                                          " has size ", strings[i].size(), " != ", bytes));
    }
    std::vector<int64_t> dims = in.shape().dim_sizes();
    dims.push_back(static_cast<int64_t>(bytes / size));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    char* to = static_cast<char*>(out->data());
    for (int64_t i = 0; i < n; ++i) std::memcpy(to + i * bytes, strings[i].data(), bytes);
    const bool host_little = [] {
      const uint16_t one = 1;
      return *reinterpret_cast<const uint8_t*>(&one) == 1;
    }();
    if (size > 1 && host_little != little_endian_) {
      for (size_t off = 0; off < n * bytes; off += size) std::reverse(to + off, to + off + size);
    }
  }

 private:
  DataType out_type_ = tensorflow::DT_INVALID;
  bool little_endian_ = true;
};

REGISTER_KERNEL(Name("DecodeRaw").Device(DEVICE_CPU), DecodeRawOp);

}  // namespace
}  // namespace tensoract
