// String kernels on the CPU: StringJoin, the regular-expression matches
// StaticRegexFullMatch and RegexFullMatch, and the shard names of sharded checkpoints
// (ShardedFilename, ShardedFilespec).
//
// Patterns are compiled by RE2, the library TensorFlow uses, with its default options
// (UTF-8, Perl-like syntax), so a pattern means here what it means there, and an invalid
// one is reported with RE2's own words.
#include <re2/re2.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

class StringJoinOp : public OpKernel {
 public:
  explicit StringJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("separator", &separator_));
  }

  // Scalars stand for every element; all other inputs must have one shape (no broadcasting
  // beyond that: [1] against [3] is refused, as in TensorFlow).
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    TensorShape shape;
    bool shape_set = false;
    for (int i = 0; i < n; ++i) {
      const TensorShape& s = ctx->input(i).shape();
      if (s.dims() == 0) continue;
      if (!shape_set) {
        shape = s;
        shape_set = true;
        continue;
      }
      OP_REQUIRES(ctx, s == shape,
                  errors::InvalidArgument(KernelWhere(*this), "Input shapes do not match: ", shape.DebugString(), " vs. ",
                                          s.DebugString()));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    std::vector<const std::string*> in(n);
    std::vector<bool> scalar(n);
    for (int i = 0; i < n; ++i) {
      in[i] = ctx->input(i).base<std::string>();
      scalar[i] = ctx->input(i).dims() == 0;
    }
    std::string* o = out->base<std::string>();
    for (int64_t e = 0; e < out->NumElements(); ++e) {
      std::string joined;
      for (int i = 0; i < n; ++i) {
        if (i > 0) joined += separator_;
        joined += in[i][scalar[i] ? 0 : e];
      }
      o[e] = std::move(joined);
    }
  }

 private:
  std::string separator_;
};

REGISTER_KERNEL(Name("StringJoin").Device(DEVICE_CPU), StringJoinOp);

// `pattern` compiled, or InvalidArgument naming it and RE2's complaint.
StatusOr<std::shared_ptr<const RE2>> CompilePattern(const OpKernel& k, const std::string& pattern) {
  RE2::Options options;
  options.set_log_errors(false);  // the error goes into the status instead of stderr
  auto re = std::make_shared<const RE2>(pattern, options);
  if (!re->ok()) {
    return errors::InvalidArgument(KernelWhere(k), "Invalid pattern: ", pattern, ", error: ", re->error());
  }
  return re;
}

// Whether each element of `input` matches `re` as a whole; output of input's shape.
void FullMatch(OpKernelContext* ctx, const Tensor& input, const RE2& re) {
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
  const std::string* in = input.base<std::string>();
  bool* o = out->base<bool>();
  for (int64_t i = 0; i < input.NumElements(); ++i) o[i] = RE2::FullMatch(in[i], re);
}

class StaticRegexFullMatchOp : public OpKernel {
 public:
  explicit StaticRegexFullMatchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string pattern;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("pattern", &pattern));
    auto re = CompilePattern(*this, pattern);
    OP_REQUIRES_OK(ctx, re.status());
    re_ = std::move(re).value();
  }
  void Compute(OpKernelContext* ctx) override { FullMatch(ctx, ctx->input(0), *re_); }

 private:
  std::shared_ptr<const RE2> re_;
};

REGISTER_KERNEL(Name("StaticRegexFullMatch").Device(DEVICE_CPU), StaticRegexFullMatchOp);

class RegexFullMatchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& pattern = ctx->input(1);
    OP_REQUIRES(ctx, pattern.dims() == 0,
                errors::InvalidArgument(KernelWhere(*this), "Pattern must be scalar, but received ",
                                        pattern.shape().DebugString()));
    auto re = Compiled(*pattern.base<std::string>());
    OP_REQUIRES_OK(ctx, re.status());
    FullMatch(ctx, ctx->input(0), *re.value());
  }

 private:
  // The pattern is almost always the same every step (a constant fed through the graph), so
  // the last one compiled is kept.
  StatusOr<std::shared_ptr<const RE2>> Compiled(const std::string& pattern) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (last_ && last_->pattern() == pattern) return last_;
    }
    auto re = CompilePattern(*this, pattern);
    if (!re.ok()) return re.status();
    std::lock_guard<std::mutex> lock(mu_);
    last_ = re.value();
    return re;
  }

  std::mutex mu_;
  std::shared_ptr<const RE2> last_;
};

REGISTER_KERNEL(Name("RegexFullMatch").Device(DEVICE_CPU), RegexFullMatchOp);

// InvalidArgument unless every input is a scalar; `names` are the inputs' names.
Status CheckScalarInputs(const OpKernel& k, OpKernelContext* ctx, const std::vector<const char*>& names) {
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    if (ctx->input(i).dims() != 0) {
      return errors::InvalidArgument(KernelWhere(k), names[i], " must be a scalar, got shape ",
                                     ctx->input(i).shape().DebugString());
    }
  }
  return Status::OK();
}

// printf into a std::string. The basename goes in as a C string, as TensorFlow passes it:
// a basename with a NUL byte is cut there ("x\0y" gives "x-00001-of-00003" there too).
template <class... Args>
std::string Printf(const char* format, Args... args) {
  const int size = std::snprintf(nullptr, 0, format, args...);
  std::string s(size, '\0');
  std::snprintf(s.data(), size + 1, format, args...);
  return s;
}

class ShardedFilenameOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, CheckScalarInputs(*this, ctx, {"basename", "shard", "num_shards"}));
    ctx->set_output(0, Tensor::Scalar<std::string>(Printf("%s-%05d-of-%05d", ctx->input(0).base<std::string>()->c_str(),
                                                           *ctx->input(1).base<int32_t>(),
                                                           *ctx->input(2).base<int32_t>())));
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("ShardedFilename").Device(DEVICE_CPU), ShardedFilenameOp);

// The format is split so that its "??-" is not read as a trigraph.
class ShardedFilespecOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, CheckScalarInputs(*this, ctx, {"basename", "num_shards"}));
    ctx->set_output(0, Tensor::Scalar<std::string>(Printf("%s-?????" "-of-%05d", ctx->input(0).base<std::string>()->c_str(),
                                                           *ctx->input(1).base<int32_t>())));
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(Name("ShardedFilespec").Device(DEVICE_CPU), ShardedFilespecOp);

}  // namespace
}  // namespace tensoract
