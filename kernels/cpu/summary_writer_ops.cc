// TensorFlow 2's summary writer kernels (graph/ops/summary_ops.cc): a SummaryWriterResource
// holds one event file (kernels/io/event_file.h), opened by CreateSummaryFileWriter and
// written by step by the Write*Summary ops, with the values TensorFlow 1's summary ops
// compute (kernels/summary_encode.h). It flushes when flush_millis have passed since its
// last flush, on FlushSummaryWriter, and on CloseSummaryWriter, which deletes it.
#include <chrono>
#include <mutex>

#include "kernels/io/event_file.h"
#include "kernels/kernel_registry.h"
#include "kernels/resource_input.h"
#include "kernels/summary_encode.h"

namespace tensoract {
namespace {

class SummaryWriterResource : public ResourceBase {
 public:
  // Opens the event file; a second call keeps the first one's.
  Status Open(const std::string& logdir, int64_t flush_millis, const std::string& suffix) {
    std::lock_guard<std::mutex> lock(mu_);
    if (file_ != nullptr) return Status::OK();
    TA_ASSIGN_OR_RETURN(file_, EventFileWriter::Open(logdir, suffix));
    flush_millis_ = flush_millis;
    last_flush_ = std::chrono::steady_clock::now();
    return Status::OK();
  }

  Status Write(tensorflow::Event event) {
    std::lock_guard<std::mutex> lock(mu_);
    if (file_ == nullptr) return errors::FailedPrecondition("the summary writer is not open (CreateSummaryFileWriter)");
    TA_RETURN_IF_ERROR(file_->Write(std::move(event)));
    const auto now = std::chrono::steady_clock::now();
    if (now - last_flush_ >= std::chrono::milliseconds(flush_millis_)) {
      last_flush_ = now;
      return file_->Flush();
    }
    return Status::OK();
  }

  Status Flush() {
    std::lock_guard<std::mutex> lock(mu_);
    return file_ == nullptr ? Status::OK() : file_->Flush();
  }

  Status Close() {
    std::lock_guard<std::mutex> lock(mu_);
    if (file_ == nullptr) return Status::OK();
    Status s = file_->Close();
    file_.reset();
    return s;
  }

  std::string DebugString() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return file_ == nullptr ? "summary writer (not open)" : "summary writer of " + file_->path();
  }

 private:
  mutable std::mutex mu_;
  std::unique_ptr<EventFileWriter> file_;
  int64_t flush_millis_ = 0;
  std::chrono::steady_clock::time_point last_flush_;
};

class SummaryWriterOp : public OpKernel {
 public:
  explicit SummaryWriterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string shared_name;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name));
    name_ = shared_name.empty() ? name() : shared_name;
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor handle(tensorflow::DT_RESOURCE, TensorShape());
    *handle.base<ResourceHandle>() = ctx->resource_manager()->MakeHandle<SummaryWriterResource>(container_, name_);
    ctx->set_output(0, handle);
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string container_, name_;
};

// A scalar input `i` of type T, named `what` in the error.
template <class T>
bool ScalarInput(OpKernelContext* ctx, int i, const char* what, T* out) {
  const Tensor& t = ctx->input(i);
  if (t.dims() != 0) {
    ctx->SetStatus(errors::InvalidArgument(what, " must be scalar, not ", t.shape().DebugString()));
    return false;
  }
  *out = t.base<T>()[0];
  return true;
}

class CreateSummaryFileWriterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string logdir, suffix;
    int32_t max_queue = 0, flush_millis = 0;
    if (!ScalarInput(ctx, 1, "logdir", &logdir) || !ScalarInput(ctx, 2, "max_queue", &max_queue) ||
        !ScalarInput(ctx, 3, "flush_millis", &flush_millis) || !ScalarInput(ctx, 4, "filename_suffix", &suffix)) {
      return;
    }
    const Tensor& handle = ctx->input(0);
    OP_REQUIRES(ctx, handle.dtype() == tensorflow::DT_RESOURCE && handle.NumElements() == 1,
                errors::InvalidArgument("node '", name(), "': input 0 is not a summary writer handle"));
    const ResourceHandle& h = *handle.base<ResourceHandle>();
    auto writer = ctx->resource_manager()->LookupOrCreate<SummaryWriterResource>(
        h.container(), h.name(), [] { return std::make_shared<SummaryWriterResource>(); });
    OP_REQUIRES_OK(ctx, writer.status());
    OP_REQUIRES_OK(ctx, (*writer)->Open(logdir, std::max(flush_millis, 0), suffix));
  }
};

// The Write*Summary kernels: the writer and the step, then what each one encodes.
class WriteOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto writer = LookupResourceInput<SummaryWriterResource>(ctx, 0, "summary writer");
    OP_REQUIRES_OK(ctx, writer.status());
    int64_t step = 0;
    if (!ScalarInput(ctx, 1, "step", &step)) return;
    tensorflow::Event event;
    event.set_step(step);
    OP_REQUIRES_OK(ctx, Encode(ctx, event.mutable_summary()));
    OP_REQUIRES_OK(ctx, (*writer)->Write(std::move(event)));
  }

 protected:
  virtual Status Encode(OpKernelContext* ctx, tensorflow::Summary* summary) = 0;
};

class WriteScalarSummaryOp : public WriteOp {
 public:
  using WriteOp::WriteOp;
  Status Encode(OpKernelContext* ctx, tensorflow::Summary* summary) override {
    TA_ASSIGN_OR_RETURN(std::string tag, ScalarTag(ctx->input(2), "tag"));
    const Tensor& value = ctx->input(3);
    if (value.dims() != 0) return errors::InvalidArgument("value must be scalar, not ", value.shape().DebugString());
    tensorflow::Summary::Value* v = summary->add_value();
    v->set_tag(tag);
    v->set_simple_value(static_cast<float>(ElementAsDouble(value, 0)));
    return Status::OK();
  }
};

class WriteHistogramSummaryOp : public WriteOp {
 public:
  using WriteOp::WriteOp;
  Status Encode(OpKernelContext* ctx, tensorflow::Summary* summary) override {
    TA_ASSIGN_OR_RETURN(std::string tag, ScalarTag(ctx->input(2), "tag"));
    return AddHistogram(tag, ctx->input(3), name(), summary);
  }
};

class WriteImageSummaryOp : public WriteOp {
 public:
  explicit WriteImageSummaryOp(OpKernelConstruction* ctx) : WriteOp(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("max_images", &max_images_));
  }
  Status Encode(OpKernelContext* ctx, tensorflow::Summary* summary) override {
    TA_ASSIGN_OR_RETURN(std::string tag, ScalarTag(ctx->input(2), "tag"));
    const Tensor& color = ctx->input(4);
    if (color.dims() != 1) return errors::InvalidArgument("bad_color must be a vector, not ", color.shape().DebugString());
    std::vector<uint8_t> bad_color(color.base<uint8_t>(), color.base<uint8_t>() + color.NumElements());
    return AddImages(tag, ctx->input(3), max_images_, bad_color, summary);
  }

 private:
  int64_t max_images_ = 3;
};

class WriteSummaryOp : public WriteOp {
 public:
  using WriteOp::WriteOp;
  Status Encode(OpKernelContext* ctx, tensorflow::Summary* summary) override {
    TA_ASSIGN_OR_RETURN(std::string tag, ScalarTag(ctx->input(3), "tag"));
    const Tensor& metadata = ctx->input(4);
    if (metadata.NumElements() != 1) {
      return errors::InvalidArgument("summary_metadata must be one string, not ", metadata.shape().DebugString());
    }
    AddTensor(tag, ctx->input(2), summary);
    if (!summary->mutable_value(0)->mutable_metadata()->ParseFromString(metadata.base<std::string>()[0])) {
      return errors::InvalidArgument("summary_metadata is not a SummaryMetadata");
    }
    return Status::OK();
  }
};

class WriteRawProtoSummaryOp : public WriteOp {
 public:
  using WriteOp::WriteOp;
  Status Encode(OpKernelContext* ctx, tensorflow::Summary* summary) override {
    const Tensor& protos = ctx->input(2);
    for (int64_t i = 0; i < protos.NumElements(); ++i) {
      tensorflow::Summary part;
      if (!part.ParseFromString(protos.base<std::string>()[i])) {
        return errors::InvalidArgument("failed to parse the serialized Summary at index ", i);
      }
      summary->MergeFrom(part);
    }
    return Status::OK();
  }
};

class FlushSummaryWriterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto writer = LookupResourceInput<SummaryWriterResource>(ctx, 0, "summary writer");
    OP_REQUIRES_OK(ctx, writer.status());
    OP_REQUIRES_OK(ctx, (*writer)->Flush());
  }
};

class CloseSummaryWriterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto writer = LookupResourceInput<SummaryWriterResource>(ctx, 0, "summary writer");
    OP_REQUIRES_OK(ctx, writer.status());
    OP_REQUIRES_OK(ctx, (*writer)->Close());
    const ResourceHandle& h = *ctx->input(0).base<ResourceHandle>();
    OP_REQUIRES_OK(ctx, ctx->resource_manager()->Delete<SummaryWriterResource>(h.container(), h.name()));
  }
};

REGISTER_KERNEL(Name("SummaryWriter").Device(DEVICE_CPU), SummaryWriterOp);
REGISTER_KERNEL(Name("CreateSummaryFileWriter").Device(DEVICE_CPU), CreateSummaryFileWriterOp);
REGISTER_KERNEL(Name("WriteScalarSummary").Device(DEVICE_CPU), WriteScalarSummaryOp);
REGISTER_KERNEL(Name("WriteHistogramSummary").Device(DEVICE_CPU), WriteHistogramSummaryOp);
REGISTER_KERNEL(Name("WriteImageSummary").Device(DEVICE_CPU), WriteImageSummaryOp);
REGISTER_KERNEL(Name("WriteSummary").Device(DEVICE_CPU), WriteSummaryOp);
REGISTER_KERNEL(Name("WriteRawProtoSummary").Device(DEVICE_CPU), WriteRawProtoSummaryOp);
REGISTER_KERNEL(Name("FlushSummaryWriter").Device(DEVICE_CPU), FlushSummaryWriterOp);
REGISTER_KERNEL(Name("CloseSummaryWriter").Device(DEVICE_CPU), CloseSummaryWriterOp);

}  // namespace
}  // namespace tensoract
