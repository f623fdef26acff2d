// ReadFile and WriteFile on the CPU: a whole file as one string (TensorFlow's tf.io.read_file
// and tf.io.write_file; a SavedModel's asset paths are typically read this way).
#include <filesystem>

#include "base/proto_io.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

class ReadFileOp : public OpKernel {
 public:
  explicit ReadFileOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& name = ctx->input(0);
    OP_REQUIRES(ctx, name.dims() == 0,
                errors::InvalidArgument(KernelWhere(*this), "filename must be a scalar, got shape ", name.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    Status st = ReadFileToString(name.base<std::string>()[0], out->base<std::string>());
    OP_REQUIRES(ctx, st.ok(), Status(st.code(), StrCat(KernelWhere(*this), st.message())));
  }
};

class WriteFileOp : public OpKernel {
 public:
  explicit WriteFileOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    for (int i : {0, 1}) {
      OP_REQUIRES(ctx, ctx->input(i).dims() == 0,
                  errors::InvalidArgument(KernelWhere(*this), i == 0 ? "filename" : "contents",
                                          " must be a scalar, got shape ", ctx->input(i).shape().DebugString()));
    }
    const std::filesystem::path path(ctx->input(0).base<std::string>()[0]);
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    Status st = WriteStringToFile(path.string(), ctx->input(1).base<std::string>()[0]);
    OP_REQUIRES(ctx, st.ok(), Status(st.code(), StrCat(KernelWhere(*this), st.message())));
  }
};

REGISTER_KERNEL(Name("ReadFile").Device(DEVICE_CPU), ReadFileOp);
REGISTER_KERNEL(Name("WriteFile").Device(DEVICE_CPU), WriteFileOp);

}  // namespace
}  // namespace tensoract
