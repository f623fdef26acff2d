// SaveV2, RestoreV2 and MergeV2Checkpoints on the CPU: the V2 checkpoint format itself is
// kernels/checkpoint/tensor_bundle.h; these kernels check their inputs and call it.
// Slices ("shape_and_slices" other than "") are not supported: Unimplemented.
#include "kernels/checkpoint/tensor_bundle.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

// Input `i` as a scalar string, or InvalidArgument naming it.
Status ScalarString(OpKernelContext* ctx, int i, const char* what, std::string* out) {
  const Tensor& t = ctx->input(i);
  if (t.dtype() != tensorflow::DT_STRING || t.NumElements() != 1 || t.dims() != 0) {
    return errors::InvalidArgument("node '", ctx->op_kernel().name(), "': ", what, " must be a scalar string, got ",
                                   DataTypeString(t.dtype()), " ", t.shape().DebugString());
  }
  *out = *t.base<std::string>();
  return Status::OK();
}

// tensor_names (input 1) and shape_and_slices (input 2), `n` of each, all slices "".
Status NamesAndSlices(OpKernelContext* ctx, int64_t n, std::vector<std::string>* names) {
  const std::string& node = ctx->op_kernel().name();
  const Tensor& tensor_names = ctx->input(1);
  const Tensor& slices = ctx->input(2);
  if (tensor_names.dims() != 1 || tensor_names.NumElements() != n) {
    return errors::InvalidArgument("node '", node, "': tensor_names must be a vector of ", n, " names, got shape ",
                                   tensor_names.shape().DebugString());
  }
  if (slices.dims() != 1 || slices.NumElements() != n) {
    return errors::InvalidArgument("node '", node, "': shape_and_slices must be a vector of ", n,
                                   " strings, got shape ", slices.shape().DebugString());
  }
  const std::string* name = tensor_names.base<std::string>();
  const std::string* slice = slices.base<std::string>();
  for (int64_t i = 0; i < n; ++i) {
    if (!slice[i].empty()) {
      return errors::Unimplemented("node '", node, "': tensor '", name[i], "' has slice spec '", slice[i],
                                   "'; only whole tensors (\"\") are supported");
    }
    names->push_back(name[i]);
  }
  return Status::OK();
}

class SaveV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    std::string prefix;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "prefix", &prefix));
    std::vector<std::string> names;
    OP_REQUIRES_OK(ctx, NamesAndSlices(ctx, ctx->num_inputs() - 3, &names));
    BundleWriter writer(prefix);
    for (size_t i = 0; i < names.size(); ++i) {
      OP_REQUIRES_OK(ctx, writer.Add(names[i], ctx->input(3 + static_cast<int>(i))).WithContext(
                              StrCat("node '", name(), "'")));
    }
    OP_REQUIRES_OK(ctx, writer.Finish().WithContext(StrCat("node '", name(), "'")));
  }
};

REGISTER_KERNEL(Name("SaveV2").Device(DEVICE_CPU), SaveV2Op);

class RestoreV2Op : public OpKernel {
 public:
  explicit RestoreV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtypes", &dtypes_));
  }

  void Compute(OpKernelContext* ctx) override {
    std::string prefix;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "prefix", &prefix));
    std::vector<std::string> names;
    OP_REQUIRES_OK(ctx, NamesAndSlices(ctx, static_cast<int64_t>(dtypes_.size()), &names));
    const std::string context = StrCat("node '", name(), "'");
    auto reader = BundleReader::Open(prefix);
    OP_REQUIRES_OK(ctx, reader.status().WithContext(context));
    for (size_t i = 0; i < names.size(); ++i) {
      tensorflow::BundleEntryProto entry;
      OP_REQUIRES_OK(ctx, (*reader)->GetEntry(names[i], &entry).WithContext(context));
      OP_REQUIRES(ctx, entry.dtype() == dtypes_[i],
                  errors::InvalidArgument(context, ": tensor_name = ", names[i], "; expected dtype ",
                                          DataTypeString(dtypes_[i]), " does not equal original dtype ",
                                          DataTypeString(entry.dtype()), " in checkpoint ", prefix));
      Tensor t;
      OP_REQUIRES_OK(ctx, (*reader)->Lookup(names[i], &t, ctx->device()->allocator()).WithContext(context));
      ctx->set_output(static_cast<int>(i), t);
    }
  }

 private:
  DataTypeVector dtypes_;
};

REGISTER_KERNEL(Name("RestoreV2").Device(DEVICE_CPU), RestoreV2Op);

class MergeV2CheckpointsOp : public OpKernel {
 public:
  explicit MergeV2CheckpointsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("delete_old_dirs", &delete_old_dirs_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("allow_missing_files", &allow_missing_files_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sources = ctx->input(0);
    OP_REQUIRES(ctx, sources.dtype() == tensorflow::DT_STRING && sources.dims() <= 1,
                errors::InvalidArgument("node '", name(), "': checkpoint_prefixes must be a vector of strings, got ",
                                        sources.shape().DebugString()));
    std::string destination;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 1, "destination_prefix", &destination));
    const std::string* p = sources.base<std::string>();
    std::vector<std::string> prefixes(p, p + sources.NumElements());
    OP_REQUIRES_OK(ctx, MergeBundles(prefixes, destination, allow_missing_files_, delete_old_dirs_)
                            .WithContext(StrCat("node '", name(), "'")));
  }

 private:
  bool delete_old_dirs_ = true;
  bool allow_missing_files_ = false;
};

REGISTER_KERNEL(Name("MergeV2Checkpoints").Device(DEVICE_CPU), MergeV2CheckpointsOp);

}  // namespace
}  // namespace tensoract
