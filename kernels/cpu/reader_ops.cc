// The reader kernels (graph/ops/reader_ops.cc). A reader op makes its reader once, by
// shared_name or private to the kernel (and so to its session), as the queue ops do. ReaderReadV2 and
// ReaderReadUpToV2 are asynchronous: when the reader runs out of work they dequeue the
// next file name from the queue without holding a thread, then go on reading on the
// device's threads (not the queue's), or on the caller's thread when the step keeps its
// kernels there and the queue answered at once. A closed, drained queue ends a read with its
// OutOfRange, except that ReadUpTo returns the records it already has.
#include <atomic>
#include <thread>

#include "kernels/io/readers.h"
#include "kernels/kernel_registry.h"
#include "kernels/kernel_resource.h"
#include "kernels/queue.h"
#include "kernels/resource_input.h"

namespace tensoract {
namespace {

// Makes its reader on first use; the subclasses say which.
class ReaderOp : public OpKernel {
 public:
  explicit ReaderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string shared_name;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name));
    reader_.Init(container_, shared_name, name());
  }
  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    auto reader = reader_.GetOrMake(rm, [&](const std::string&) -> StatusOr<std::shared_ptr<WorkReader>> {
      return Make();
    });
    OP_REQUIRES_OK(ctx, reader.status());
    Tensor handle(tensorflow::DT_RESOURCE, TensorShape());
    *handle.base<ResourceHandle>() = reader_.Handle(rm);
    ctx->set_output(0, handle);
  }
  bool IsExpensive() const override { return false; }

 protected:
  virtual std::shared_ptr<WorkReader> Make() const = 0;

 private:
  std::string container_;
  KernelResource<WorkReader> reader_;
};

class FixedLengthRecordReaderOp : public ReaderOp {
 public:
  explicit FixedLengthRecordReaderOp(OpKernelConstruction* ctx) : ReaderOp(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("header_bytes", &options_.header_bytes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("record_bytes", &options_.record_bytes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("footer_bytes", &options_.footer_bytes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("hop_bytes", &options_.hop_bytes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("encoding", &options_.encoding));
    OP_REQUIRES_OK(ctx, CheckCompression(options_.encoding).WithContext(StrCat("node '", name(), "'")));
    OP_REQUIRES(ctx, options_.header_bytes >= 0 && options_.footer_bytes >= 0 && options_.hop_bytes >= 0,
                errors::InvalidArgument("node '", name(), "': header_bytes, footer_bytes and hop_bytes must be >= 0"));
    OP_REQUIRES(ctx, options_.record_bytes > 0,
                errors::InvalidArgument("node '", name(), "': record_bytes must be > 0, got ", options_.record_bytes));
  }

 protected:
  std::shared_ptr<WorkReader> Make() const override { return NewFixedLengthRecordReader(options_); }

 private:
  FixedLengthRecordOptions options_;
};

class TFRecordReaderOp : public ReaderOp {
 public:
  explicit TFRecordReaderOp(OpKernelConstruction* ctx) : ReaderOp(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("compression_type", &compression_));
    OP_REQUIRES_OK(ctx, CheckCompression(compression_).WithContext(StrCat("node '", name(), "'")));
  }

 protected:
  std::shared_ptr<WorkReader> Make() const override { return NewTFRecordReader(compression_); }

 private:
  std::string compression_;
};

class WholeFileReaderOp : public ReaderOp {
 public:
  using ReaderOp::ReaderOp;

 protected:
  std::shared_ptr<WorkReader> Make() const override { return NewWholeFileReader(); }
};

class TextLineReaderOp : public ReaderOp {
 public:
  explicit TextLineReaderOp(OpKernelConstruction* ctx) : ReaderOp(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("skip_header_lines", &skip_));
  }

 protected:
  std::shared_ptr<WorkReader> Make() const override { return NewTextLineReader(skip_); }

 private:
  int64_t skip_ = 0;
};

class ReaderReadOp : public AsyncOpKernel {
 public:
  explicit ReaderReadOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    up_to_ = ctx->def().op() == "ReaderReadUpToV2";
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto reader = LookupResourceInput<WorkReader>(ctx, 0, "reader");
    if (!reader.ok()) return ctx->SetStatus(reader.status()), done();
    auto queue = LookupResourceInput<QueueInterface>(ctx, 1, "queue");
    if (!queue.ok()) return ctx->SetStatus(queue.status()), done();
    const QueueSpec& spec = queue.value()->spec();
    if (spec.component_types != DataTypeVector{tensorflow::DT_STRING}) {
      return ctx->SetStatus(errors::InvalidArgument("node '", name(), "': ", spec.Describe(), " holds ",
                                                    DataTypeVectorString(spec.component_types),
                                                    "; a reader dequeues work from a queue of single strings")),
             done();
    }
    int64_t n = 1;
    if (up_to_) {
      const Tensor& num = ctx->input(2);
      if (num.dims() != 0 || num.base<int64_t>()[0] <= 0) {
        return ctx->SetStatus(errors::InvalidArgument("node '", name(), "': num_records must be a positive scalar, got ",
                                                      num.DebugString())),
               done();
      }
      n = num.base<int64_t>()[0];
    }
    auto read = std::make_shared<Read>(Read{ctx, reader.value(), queue.value(), n, {}, {}, std::move(done)});
    Continue(read);
  }

 private:
  struct Read {
    OpKernelContext* ctx;
    std::shared_ptr<WorkReader> reader;
    std::shared_ptr<QueueInterface> queue;
    int64_t n;
    std::vector<std::string> keys, values;
    DoneCallback done;
  };

  void Continue(const std::shared_ptr<Read>& read) const {
    bool needs_work = false;
    // Keys nobody uses are not made (an IDX pipeline's: two allocations per record saved).
    Status s = read->reader->Read(read->n, read->ctx->output_required(0) ? &read->keys : nullptr, &read->values,
                                  &needs_work);
    if (!s.ok()) return Finish(read, s);
    if (!needs_work) return Finish(read, Status::OK());
    // Whether the work queue answers within Dequeue, on this thread.
    auto answered_here = std::make_shared<std::atomic<bool>>(true);
    const std::thread::id here = std::this_thread::get_id();
    read->queue->Dequeue(-1, false, read->ctx->cancellation(),
                         [this, read, answered_here, here](const Status& s, QueueTuple work) {
      if (!s.ok()) return Finish(read, s);
      if (work.size() != 1 || work[0].NumElements() != 1) {
        return Finish(read, errors::InvalidArgument("node '", name(), "': the work queue gave a tuple of ",
                                                    work.size(), " components; expected one string"));
      }
      read->reader->AddWork(work[0].base<std::string>()[0]);
      // A step that keeps its kernels on its caller's thread reads there (opening a file may
      // inflate it whole); else reading goes on on the device's threads, never on the queue
      // actor's.
      if (read->ctx->on_caller_thread() && answered_here->load() && std::this_thread::get_id() == here) {
        return Continue(read);
      }
      read->ctx->device()->Schedule([this, read] { Continue(read); });
    });
    answered_here->store(false);
  }

  void Finish(const std::shared_ptr<Read>& read, Status s) const {
    OpKernelContext* ctx = read->ctx;
    // ReadUpTo keeps what it read before the queue ran dry.
    if (!s.ok() && !(up_to_ && !read->values.empty() && s.code() == error::OUT_OF_RANGE)) {
      ctx->SetStatus(s);
      return read->done();
    }
    const int64_t got = static_cast<int64_t>(read->values.size());
    Tensor keys(tensorflow::DT_STRING, up_to_ ? TensorShape({got}) : TensorShape());
    Tensor values(tensorflow::DT_STRING, up_to_ ? TensorShape({got}) : TensorShape());
    for (int64_t i = 0; i < got; ++i) {
      if (!read->keys.empty()) keys.base<std::string>()[i] = std::move(read->keys[i]);  // else "": unused
      values.base<std::string>()[i] = std::move(read->values[i]);
    }
    ctx->set_output(0, keys);
    ctx->set_output(1, values);
    read->done();
  }

  bool up_to_ = false;
};

class ReaderCountOp : public OpKernel {
 public:
  explicit ReaderCountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    records_ = ctx->def().op() == "ReaderNumRecordsProducedV2";
  }
  void Compute(OpKernelContext* ctx) override {
    auto reader = LookupResourceInput<WorkReader>(ctx, 0, "reader");
    OP_REQUIRES_OK(ctx, reader.status());
    ctx->set_output(0, Tensor::Scalar<int64_t>(records_ ? reader.value()->records_produced()
                                                        : reader.value()->work_units_completed()));
  }
  bool IsExpensive() const override { return false; }

 private:
  bool records_ = true;
};

class ReaderResetOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto reader = LookupResourceInput<WorkReader>(ctx, 0, "reader");
    OP_REQUIRES_OK(ctx, reader.status());
    reader.value()->Reset();
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("FixedLengthRecordReaderV2").Device(DEVICE_CPU), FixedLengthRecordReaderOp);
REGISTER_KERNEL(Name("TFRecordReaderV2").Device(DEVICE_CPU), TFRecordReaderOp);
REGISTER_KERNEL(Name("WholeFileReaderV2").Device(DEVICE_CPU), WholeFileReaderOp);
REGISTER_KERNEL(Name("TextLineReaderV2").Device(DEVICE_CPU), TextLineReaderOp);
REGISTER_KERNEL(Name("ReaderReadV2").Device(DEVICE_CPU), ReaderReadOp);
REGISTER_KERNEL(Name("ReaderReadUpToV2").Device(DEVICE_CPU), ReaderReadOp);
REGISTER_KERNEL(Name("ReaderNumRecordsProducedV2").Device(DEVICE_CPU), ReaderCountOp);
REGISTER_KERNEL(Name("ReaderNumWorkUnitsCompletedV2").Device(DEVICE_CPU), ReaderCountOp);
REGISTER_KERNEL(Name("ReaderResetV2").Device(DEVICE_CPU), ReaderResetOp);

}  // namespace
}  // namespace tensoract
