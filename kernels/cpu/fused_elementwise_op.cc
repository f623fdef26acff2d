// _FusedElementwise on the CPU (graph/ops/math_ops.cc; made by
// graph/optimizer/elementwise_fusion.h): a small program of element-wise instructions run a
// block of rows at a time, each instruction's result a block buffer in cache, so the region's
// intermediate tensors never go to memory. Full operands are read where they lie (a block
// is a contiguous range of rows); a vector operand repeats along each row of channels.
//
// Each instruction computes what the node it replaces computed, element by element, so a
// region without `reduce` gives the unfused nodes' values bit for bit. A per-channel sum
// adds a block's rows in float, the blocks of a shard in double and the shards in order: not
// Eigen's order (equal up to float rounding), the same on any number of threads.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/cwise_ops.h"
#include "kernels/cpu/strided_copy.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace {

enum class ElementwiseCode { kAdd, kSub, kMul, kDiv, kSquaredDifference, kNeg };

struct ProgramOperand {
  enum Kind { kFull, kVector, kConstant, kRegister } kind = kFull;
  int index = 0;
};

struct ProgramInstruction {
  ElementwiseCode code = ElementwiseCode::kAdd;
  ProgramOperand a, b;  // b unused by kNeg
};

Status ParseFusedOperand(const std::string& text, const int limits[4], ProgramOperand* out) {
  static const char kPrefixes[] = {'f', 'v', 'c', 'r'};
  for (int kind = 0; kind < 4; ++kind) {
    if (text.size() < 2 || text[0] != kPrefixes[kind]) continue;
    char* end = nullptr;
    const long index = std::strtol(text.c_str() + 1, &end, 10);
    if (*end != '\0' || index < 0 || index >= limits[kind]) break;
    *out = {static_cast<ProgramOperand::Kind>(kind), static_cast<int>(index)};
    return Status::OK();
  }
  return errors::InvalidArgument("operand '", text, "' names no input, constant or earlier result (",
                                 limits[0], " full inputs, ", limits[1], " vectors, ", limits[2], " constants, ",
                                 limits[3], " results before it)");
}

Status ParseFusedInstruction(const std::string& text, const int limits[4], ProgramInstruction* out) {
  std::vector<std::string> words;
  size_t start = 0;
  while (start < text.size()) {
    const size_t space = text.find(' ', start);
    const size_t end = space == std::string::npos ? text.size() : space;
    if (end > start) words.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  static const std::pair<const char*, ElementwiseCode> kCodes[] = {{"add", ElementwiseCode::kAdd}, {"sub", ElementwiseCode::kSub},
                                                        {"mul", ElementwiseCode::kMul}, {"div", ElementwiseCode::kDiv},
                                                        {"squared_difference", ElementwiseCode::kSquaredDifference},
                                                        {"neg", ElementwiseCode::kNeg}};
  for (const auto& [name, code] : kCodes) {
    if (words.empty() || words[0] != name) continue;
    const size_t operands = code == ElementwiseCode::kNeg ? 1 : 2;
    if (words.size() != 1 + operands) break;
    out->code = code;
    TA_RETURN_IF_ERROR(ParseFusedOperand(words[1], limits, &out->a));
    if (operands == 2) TA_RETURN_IF_ERROR(ParseFusedOperand(words[2], limits, &out->b));
    return Status::OK();
  }
  return errors::InvalidArgument("instruction '", text,
                                 "' is not 'add|sub|mul|div|squared_difference a b' or 'neg a'");
}

// Where an operand's values lie for one block: a contiguous array, one row of channels that
// repeats, or one value.
struct BlockValues {
  enum Kind { kArray, kRow, kScalar } kind;
  const float* p;
  float s;
};

template <class F>
void ApplyToBlock(F f, const BlockValues& a, const BlockValues& b, int64_t rows, int64_t channels, float* dst) {
  const int64_t n = rows * channels;
  if (a.kind == BlockValues::kArray && b.kind == BlockValues::kArray) {
    for (int64_t i = 0; i < n; ++i) dst[i] = f(a.p[i], b.p[i]);
  } else if (a.kind == BlockValues::kScalar && b.kind == BlockValues::kScalar) {
    std::fill(dst, dst + n, f(a.s, b.s));
  } else if (a.kind == BlockValues::kArray && b.kind == BlockValues::kScalar) {
    const float y = b.s;
    for (int64_t i = 0; i < n; ++i) dst[i] = f(a.p[i], y);
  } else if (a.kind == BlockValues::kScalar && b.kind == BlockValues::kArray) {
    const float x = a.s;
    for (int64_t i = 0; i < n; ++i) dst[i] = f(x, b.p[i]);
  } else {
    // At least one row operand: loop over rows, the channels inner.
    for (int64_t r = 0; r < rows; ++r) {
      float* d = dst + r * channels;
      const float* x = a.kind == BlockValues::kArray ? a.p + r * channels : a.p;
      const float* y = b.kind == BlockValues::kArray ? b.p + r * channels : b.p;
      if (a.kind == BlockValues::kScalar) {
        for (int64_t c = 0; c < channels; ++c) d[c] = f(a.s, y[c]);
      } else if (b.kind == BlockValues::kScalar) {
        for (int64_t c = 0; c < channels; ++c) d[c] = f(x[c], b.s);
      } else {
        for (int64_t c = 0; c < channels; ++c) d[c] = f(x[c], y[c]);
      }
    }
  }
}

void ExecuteInstruction(const ProgramInstruction& in, const BlockValues& a, const BlockValues& b, int64_t rows, int64_t channels, float* dst) {
  switch (in.code) {
    case ElementwiseCode::kAdd: ApplyToBlock([](float x, float y) { return x + y; }, a, b, rows, channels, dst); break;
    case ElementwiseCode::kSub: ApplyToBlock([](float x, float y) { return x - y; }, a, b, rows, channels, dst); break;
    case ElementwiseCode::kMul: ApplyToBlock([](float x, float y) { return x * y; }, a, b, rows, channels, dst); break;
    case ElementwiseCode::kDiv: ApplyToBlock([](float x, float y) { return x / y; }, a, b, rows, channels, dst); break;
    case ElementwiseCode::kSquaredDifference:
      ApplyToBlock([](float x, float y) { const float d = x - y; return d * d; }, a, b, rows, channels, dst);
      break;
    case ElementwiseCode::kNeg: ApplyToBlock([](float x, float) { return -x; }, a, {BlockValues::kScalar, nullptr, 0.f}, rows, channels, dst);
      break;
  }
}

// About this many elements a block: the registers of a region (ten or so) stay in L2.
constexpr int64_t kFusedBlockElements = 2048;
// Shards of a per-channel sum: the work's split over threads, and the order its partial
// sums are added in.
constexpr int64_t kFusedMaxShards = 16;

class FusedElementwiseOp : public OpKernel {
 public:
  explicit FusedElementwiseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_full", &num_full_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_vectors", &num_vectors_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_shapes", &num_shapes_));
    std::string reduce;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("reduce", &reduce));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
    reduce_ = reduce != "none";
    mean_ = reduce == "mean";
    auto constants = ctx->def().attr().find("constants");
    if (constants != ctx->def().attr().end()) {
      for (float c : constants->second.list().f()) constants_.push_back(c);
    }
    std::vector<std::string> program;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("program", &program));
    OP_REQUIRES(ctx, !program.empty(), errors::InvalidArgument("node '", ctx->def().name(), "': the program is empty"));
    for (const std::string& text : program) {
      const int limits[4] = {static_cast<int>(num_full_), static_cast<int>(num_vectors_),
                             static_cast<int>(constants_.size()), static_cast<int>(program_.size())};
      ProgramInstruction in;
      Status s = ParseFusedInstruction(text, limits, &in);
      OP_REQUIRES(ctx, s.ok(), s.WithContext("node '" + ctx->def().name() + "'"));
      program_.push_back(in);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, OutputShape(ctx, &shape));
    const int64_t channels = shape.dims() == 0 ? 1 : shape.dim_size(shape.dims() - 1);
    const int64_t rows = channels == 0 ? 0 : shape.num_elements() / channels;

    // A full operand of another shape (broadcast along rows: rare) is spread out first.
    std::vector<Tensor> spread;
    std::vector<const float*> full(num_full_);
    for (int i = 0; i < num_full_; ++i) {
      const Tensor& t = ctx->input(i);
      if (t.shape() == shape) {
        full[i] = t.base<float>();
        continue;
      }
      spread.emplace_back(tensorflow::DT_FLOAT, shape);
      StridedCopy(ctx, t, {0, StridesIn(t.shape(), shape)}, &spread.back(), {0, RowMajorStrides(shape)},
                  shape.dim_sizes());
      full[i] = spread.back().base<float>();
    }
    std::vector<BlockValues> vectors(num_vectors_);
    for (int i = 0; i < num_vectors_; ++i) {
      const Tensor& v = ctx->input(num_full_ + i);
      vectors[i] = v.NumElements() == 1 ? BlockValues{BlockValues::kScalar, nullptr, *v.base<float>()}
                                        : BlockValues{BlockValues::kRow, v.base<float>(), 0.f};
    }

    Tensor* out = nullptr;
    if (reduce_) {
      std::vector<int64_t> dims = {channels};
      if (keep_dims_) {
        dims.assign(std::max(shape.dims(), 1), 1);
        dims.back() = channels;
      }
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    } else if (num_full_ > 1 && ctx->input(0).shape() == shape && ctx->input(1).shape() == shape) {
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, shape, &out));
    } else if (num_full_ > 0 && ctx->input(0).shape() == shape) {
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(0, 0, shape, &out));
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    }
    float* y = out->base<float>();

    const int64_t block_rows = std::max<int64_t>(1, kFusedBlockElements / std::max<int64_t>(channels, 1));
    const int64_t blocks = (rows + block_rows - 1) / block_rows;
    const int64_t shards = std::min(blocks, kFusedMaxShards);
    const int64_t cost = static_cast<int64_t>(program_.size()) * block_rows * channels;
    if (!reduce_) {
      CwiseParallelFor(ctx, blocks, cost, [&](int64_t first, int64_t last) {
        std::vector<float> registers(program_.size() * block_rows * channels);
        for (int64_t b = first; b < last; ++b) {
          const int64_t row = b * block_rows;
          RunBlock(full, vectors, row, std::min(block_rows, rows - row), channels, registers.data(),
                   y + row * channels);
        }
      });
      return;
    }
    std::vector<double> partial(shards * channels, 0.0);
    const int64_t per_shard = shards == 0 ? 0 : (blocks + shards - 1) / shards;
    CwiseParallelFor(ctx, shards, cost * per_shard, [&](int64_t first, int64_t last) {
      std::vector<float> registers(program_.size() * block_rows * channels);
      std::vector<float> block_sum(channels);
      for (int64_t s = first; s < last; ++s) {
        double* sum = partial.data() + s * channels;
        for (int64_t b = s * per_shard; b < std::min(blocks, (s + 1) * per_shard); ++b) {
          const int64_t row = b * block_rows;
          const int64_t n = std::min(block_rows, rows - row);
          const float* result = RunBlock(full, vectors, row, n, channels, registers.data(), nullptr);
          std::copy(result, result + channels, block_sum.begin());
          for (int64_t r = 1; r < n; ++r) {
            for (int64_t c = 0; c < channels; ++c) block_sum[c] += result[r * channels + c];
          }
          for (int64_t c = 0; c < channels; ++c) sum[c] += block_sum[c];
        }
      }
    });
    for (int64_t c = 0; c < channels; ++c) {
      double total = 0;
      for (int64_t s = 0; s < shards; ++s) total += partial[s * channels + c];
      y[c] = static_cast<float>(mean_ ? total / static_cast<double>(rows) : total);
    }
  }

 private:
  // The broadcast shape of the full inputs and the absorbed BroadcastTo shapes; each vector
  // must broadcast into it without changing it.
  Status OutputShape(OpKernelContext* ctx, TensorShape* shape) const {
    bool first = true;
    auto merge = [&](const TensorShape& s) -> Status {
      if (first) {
        *shape = s;
        first = false;
        return Status::OK();
      }
      StatusOr<TensorShape> both = BroadcastShape(*shape, s);
      if (!both.ok()) return both.status();
      *shape = *both;
      return Status::OK();
    };
    for (int i = 0; i < num_full_; ++i) TA_RETURN_IF_ERROR(merge(ctx->input(i).shape()));
    for (int i = 0; i < num_shapes_; ++i) {
      const Tensor& t = ctx->input(num_full_ + num_vectors_ + i);
      if (t.dims() != 1) {
        return errors::InvalidArgument(NodePrefix(*this), "shape input ", i, " must be a vector, not ",
                                       t.shape().DebugString());
      }
      std::vector<int64_t> dims = IndexValues(t);
      for (int64_t d : dims) {
        if (d < 0) return errors::InvalidArgument(NodePrefix(*this), "shape input ", i, " has a negative dimension ", d);
      }
      TA_RETURN_IF_ERROR(merge(TensorShape(dims)));
    }
    if (first) return errors::InvalidArgument(NodePrefix(*this), "no full input or shape gives the output's shape");
    const int64_t channels = shape->dims() == 0 ? 1 : shape->dim_size(shape->dims() - 1);
    for (int i = 0; i < num_vectors_; ++i) {
      const Tensor& v = ctx->input(num_full_ + i);
      StatusOr<TensorShape> both = BroadcastShape(*shape, v.shape());
      if (!both.ok() || *both != *shape || (v.NumElements() != channels && v.NumElements() != 1)) {
        return errors::InvalidArgument(NodePrefix(*this), "vector input ", i, " of shape ", v.shape().DebugString(),
                                       " is not one value per channel of the output's shape ", shape->DebugString());
      }
    }
    return Status::OK();
  }

  // The program on `n` rows from `row`: every result in `registers`, the last one in `out`
  // where given. Returns the last result.
  const float* RunBlock(const std::vector<const float*>& full, const std::vector<BlockValues>& vectors, int64_t row,
                        int64_t n, int64_t channels, float* registers, float* out) const {
    const int64_t stride = n * channels;
    auto values = [&](const ProgramOperand& o) -> BlockValues {
      switch (o.kind) {
        case ProgramOperand::kFull: return {BlockValues::kArray, full[o.index] + row * channels, 0.f};
        case ProgramOperand::kVector: return vectors[o.index];
        case ProgramOperand::kConstant: return {BlockValues::kScalar, nullptr, constants_[o.index]};
        case ProgramOperand::kRegister: return {BlockValues::kArray, registers + o.index * stride, 0.f};
      }
      return {BlockValues::kScalar, nullptr, 0.f};
    };
    float* dst = registers;
    for (size_t i = 0; i < program_.size(); ++i) {
      const ProgramInstruction& in = program_[i];
      dst = (out != nullptr && i + 1 == program_.size()) ? out : registers + i * stride;
      const bool unary = in.code == ElementwiseCode::kNeg;  // its b names nothing
      ExecuteInstruction(in, values(in.a), unary ? BlockValues{BlockValues::kScalar, nullptr, 0.f} : values(in.b), n,
                         channels, dst);
    }
    return dst;
  }

  int64_t num_full_ = 0, num_vectors_ = 0, num_shapes_ = 0;
  bool reduce_ = false, mean_ = false, keep_dims_ = false;
  std::vector<float> constants_;
  std::vector<ProgramInstruction> program_;
};

REGISTER_KERNEL(Name("_FusedElementwise").Device(DEVICE_CPU).TypeConstraint<float>("T"), FusedElementwiseOp);

}  // namespace
}  // namespace tensoract
