// SpaceToDepth and DepthToSpace on the CPU, NHWC only (TensorFlow's CPU kernels refuse the
// other layouts too), for the types TensorFlow's CPU kernels take (less resources and variants).
//
// With bs the block size, an NHWC input [B, H, W, C] and its SpaceToDepth [B, H/bs, W/bs,
// C*bs*bs] are the same six-dimensional box [B, H/bs, bs, W/bs, bs, C] read with different
// strides, so each direction is one StridedCopy.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

// TensorFlow's SpaceToDepth also has a qint8 kernel (for NCHW_VECT_C on a GPU); its
// DepthToSpace has none.
DataTypeVector DepthSpaceTypes(bool with_qint8) {
  namespace tf = ::tensorflow;
  DataTypeVector types = {tf::DT_FLOAT,  tf::DT_DOUBLE, tf::DT_HALF,      tf::DT_BFLOAT16,   tf::DT_INT8,
                          tf::DT_INT16,  tf::DT_INT32,  tf::DT_INT64,     tf::DT_UINT8,      tf::DT_UINT16,
                          tf::DT_UINT32, tf::DT_UINT64, tf::DT_BOOL,      tf::DT_COMPLEX64,  tf::DT_COMPLEX128,
                          tf::DT_STRING};
  if (with_qint8) types.push_back(tf::DT_QINT8);
  return types;
}

template <bool kToDepth>
class DepthSpaceOp : public OpKernel {
 public:
  explicit DepthSpaceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ReadAttrs(ctx);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dims() == 4,
                errors::InvalidArgument(NodePrefix(*this), "Input rank should be", kToDepth ? " " : ": ", 4,
                                        kToDepth ? " instead of " : " instead of: ", input.dims()));
    const int64_t bs = block_size_;
    const int64_t batch = input.dim_size(0), height = input.dim_size(1), width = input.dim_size(2),
                  depth = input.dim_size(3);
    // The box [B, h, bs, w, bs, c] with h, w, c the small sides' sizes.
    int64_t h = height, w = width, c = depth;
    std::vector<int64_t> out_dims;
    if (kToDepth) {
      OP_REQUIRES(ctx, width % bs == 0 && height % bs == 0,
                  errors::InvalidArgument(NodePrefix(*this), "Image width ", width, " and height ", height,
                                          " should be divisible by block_size: ", bs));
      h = height / bs;
      w = width / bs;
      out_dims = {batch, h, w, depth * bs * bs};
    } else {
      OP_REQUIRES(ctx, depth % (bs * bs) == 0,
                  errors::InvalidArgument(NodePrefix(*this), "Input depth dimension ", depth,
                                          " should be divisible by: ", bs * bs));
      c = depth / (bs * bs);
      out_dims = {batch, height * bs, width * bs, c};
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> box = {batch, h, bs, w, bs, c};
    // The spatial side [B, h*bs, w*bs, c] and the depth side [B, h, w, bs*bs*c].
    const StridedView space{0, {h * bs * w * bs * c, bs * w * bs * c, w * bs * c, bs * c, c, 1}};
    const StridedView depth_side{0, {h * w * bs * bs * c, w * bs * bs * c, bs * c, bs * bs * c, c, 1}};
    if (kToDepth) {
      StridedCopy(ctx, input, space, out, depth_side, box);
    } else {
      StridedCopy(ctx, input, depth_side, out, space, box);
    }
  }

 private:
  Status ReadAttrs(OpKernelConstruction* ctx) {
    TA_RETURN_IF_ERROR(ctx->GetAttr("block_size", &block_size_));
    std::string format;
    TA_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
    if (block_size_ <= 1) {
      return errors::InvalidArgument("Block size should be > 1, but was: ", block_size_);
    }
    if (format != "NHWC") return errors::InvalidArgument("Only NHWC data_format supported on CPU. Got ", format);
    return Status::OK();
  }

  int64_t block_size_ = 0;
};

REGISTER_KERNEL(Name("SpaceToDepth").Device(DEVICE_CPU).TypeConstraint("T", DepthSpaceTypes(true)), DepthSpaceOp<true>);
REGISTER_KERNEL(Name("DepthToSpace").Device(DEVICE_CPU).TypeConstraint("T", DepthSpaceTypes(false)), DepthSpaceOp<false>);

}  // namespace
}  // namespace tensoract
