// The tf.Example parsers on the CPU (ParseExample, ParseExampleV2, ParseSingleExample):
// each serialized Example (messages/example.proto) gives, per dense key, a row of the
// key's fixed shape (its default where the feature is missing, an error where there is
// none), and per sparse key its values with their (example, position) indices. Errors
// are TensorFlow's words, naming the key and the example's index.
#include <cstring>

#include "kernels/kernel_registry.h"
#include "messages/example.pb.h"

namespace tensoract {
namespace {

enum class Variant { kV1, kV2, kSingle };

struct DenseSpec {
  std::string key;
  DataType dtype;
  TensorShape shape;
  Tensor default_value;  // empty: required
};

struct SparseSpec {
  std::string key;
  DataType dtype;
};

const char* FeatureTypeName(const tensorflow::Feature& f) {
  switch (f.kind_case()) {
    case tensorflow::Feature::kBytesList: return "string";
    case tensorflow::Feature::kFloatList: return "float";
    case tensorflow::Feature::kInt64List: return "int64";
    default: return "none";
  }
}

int64_t FeatureSize(const tensorflow::Feature& f) {
  switch (f.kind_case()) {
    case tensorflow::Feature::kBytesList: return f.bytes_list().value_size();
    case tensorflow::Feature::kFloatList: return f.float_list().value_size();
    case tensorflow::Feature::kInt64List: return f.int64_list().value_size();
    default: return 0;
  }
}

bool TypeMatches(const tensorflow::Feature& f, DataType dtype) {
  return f.kind_case() == tensorflow::Feature::KIND_NOT_SET ||
         (dtype == tensorflow::DT_STRING && f.has_bytes_list()) ||
         (dtype == tensorflow::DT_FLOAT && f.has_float_list()) || (dtype == tensorflow::DT_INT64 && f.has_int64_list());
}

// Copies f's values into `out` from element `offset` on.
void CopyFeature(const tensorflow::Feature& f, Tensor* out, int64_t offset) {
  switch (f.kind_case()) {
    case tensorflow::Feature::kBytesList:
      for (int i = 0; i < f.bytes_list().value_size(); ++i) out->base<std::string>()[offset + i] = f.bytes_list().value(i);
      break;
    case tensorflow::Feature::kFloatList:
      std::memcpy(out->base<float>() + offset, f.float_list().value().data(), f.float_list().value_size() * sizeof(float));
      break;
    case tensorflow::Feature::kInt64List:
      std::memcpy(out->base<int64_t>() + offset, f.int64_list().value().data(),
                  f.int64_list().value_size() * sizeof(int64_t));
      break;
    default:
      break;
  }
}

// Copies `n` elements of `from` (from element 0, or its only element broadcast) to `out`.
void CopyDefault(const Tensor& from, Tensor* out, int64_t offset, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = from.NumElements() == 1 ? 0 : i;
    switch (from.dtype()) {
      case tensorflow::DT_STRING: out->base<std::string>()[offset + i] = from.base<std::string>()[j]; break;
      case tensorflow::DT_FLOAT: out->base<float>()[offset + i] = from.base<float>()[j]; break;
      case tensorflow::DT_INT64: out->base<int64_t>()[offset + i] = from.base<int64_t>()[j]; break;
      default: break;
    }
  }
}

class ParseExampleOp : public OpKernel {
 public:
  explicit ParseExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const std::string& op = ctx->def().op();
    variant_ = op == "ParseExample" ? Variant::kV1 : op == "ParseExampleV2" ? Variant::kV2 : Variant::kSingle;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Tdense", &dense_types_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("sparse_types", &sparse_types_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dense_shapes", &dense_shapes_));
    if (variant_ == Variant::kSingle) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("sparse_keys", &sparse_keys_));
      OP_REQUIRES_OK(ctx, ctx->GetAttr("dense_keys", &dense_keys_));
    }
    if (variant_ == Variant::kV2) {
      DataTypeVector ragged;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("ragged_value_types", &ragged));
      OP_REQUIRES(ctx, ragged.empty(),
                  errors::Unimplemented("node '", name(), "': ragged features are not supported"));
    }
    OP_REQUIRES(ctx, dense_shapes_.size() == dense_types_.size(),
                errors::InvalidArgument("node '", name(), "': ", dense_shapes_.size(), " dense_shapes for ",
                                        dense_types_.size(), " dense types"));
    for (const PartialTensorShape& shape : dense_shapes_) {
      OP_REQUIRES(ctx, shape.IsFullyDefined(),
                  errors::Unimplemented("node '", name(), "': dense feature shape ", shape.DebugString(),
                                        " is not fully defined (variable-length dense features are not supported)"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<DenseSpec> dense;
    std::vector<SparseSpec> sparse;
    int defaults_input = 0;
    OP_REQUIRES_OK(ctx, Specs(ctx, &dense, &sparse, &defaults_input));
    const Tensor& serialized = ctx->input(0);
    OP_REQUIRES(ctx, variant_ == Variant::kSingle ? serialized.dims() == 0 : serialized.dims() <= 1,
                errors::InvalidArgument("node '", name(), "': serialized must be ",
                                        variant_ == Variant::kSingle ? "a scalar" : "a scalar or a vector",
                                        ", got shape ", serialized.shape().DebugString()));
    const bool batched = variant_ != Variant::kSingle && serialized.dims() == 1;
    const int64_t n = serialized.NumElements();
    for (size_t d = 0; d < dense.size(); ++d) dense[d].default_value = ctx->input(defaults_input + static_cast<int>(d));

    // Dense outputs first allocated, filled example by example.
    const int num_sparse = static_cast<int>(sparse.size());
    std::vector<Tensor*> dense_out(dense.size());
    for (size_t d = 0; d < dense.size(); ++d) {
      std::vector<int64_t> dims;
      if (batched) dims.push_back(n);
      for (int64_t s : dense[d].shape.dim_sizes()) dims.push_back(s);
      OP_REQUIRES_OK(ctx, ctx->allocate_output(3 * num_sparse + static_cast<int>(d), TensorShape(dims), &dense_out[d]));
    }
    std::vector<std::vector<std::pair<int64_t, const tensorflow::Feature*>>> sparse_found(sparse.size());
    std::vector<tensorflow::Example> examples(n);
    for (int64_t e = 0; e < n; ++e) {
      OP_REQUIRES(ctx, examples[e].ParseFromString(serialized.base<std::string>()[e]),
                  errors::InvalidArgument("Could not parse example input, value: '",
                                          serialized.base<std::string>()[e].substr(0, 32), "' (example ", e, ")"));
      const auto& features = examples[e].features().feature();
      for (size_t d = 0; d < dense.size(); ++d) {
        const DenseSpec& spec = dense[d];
        const int64_t row = spec.shape.num_elements();
        auto found = features.find(spec.key);
        if (found == features.end() || (FeatureSize(found->second) == 0 && spec.default_value.NumElements() > 0)) {
          OP_REQUIRES(ctx, spec.default_value.NumElements() > 0,
                      errors::InvalidArgument("Name: <unknown>, Feature: ", spec.key, " (data type: ",
                                              DataTypeString(spec.dtype), ") is required but could not be found."));
          CopyDefault(spec.default_value, dense_out[d], e * row, row);
          continue;
        }
        const tensorflow::Feature& f = found->second;
        OP_REQUIRES(ctx, TypeMatches(f, spec.dtype),
                    errors::InvalidArgument("Name: <unknown>, Key: ", spec.key, ", Index: ", e,
                                            ".  Data types don't match. Data type: ", FeatureTypeName(f),
                                            " but expected type: ", DataTypeString(spec.dtype)));
        OP_REQUIRES(ctx, FeatureSize(f) == row,
                    errors::InvalidArgument("Name: <unknown>, Key: ", spec.key, ", Index: ", e, ".  Number of ",
                                            FeatureTypeName(f), " values != expected.  values size: ", FeatureSize(f),
                                            " but output shape: ", spec.shape.DebugString()));
        CopyFeature(f, dense_out[d], e * row);
      }
      for (size_t s = 0; s < sparse.size(); ++s) {
        auto found = features.find(sparse[s].key);
        if (found == features.end()) continue;
        OP_REQUIRES(ctx, TypeMatches(found->second, sparse[s].dtype),
                    errors::InvalidArgument("Name: <unknown>, Key: ", sparse[s].key, ", Index: ", e,
                                            ".  Data types don't match. Expected type: ",
                                            DataTypeString(sparse[s].dtype)));
        sparse_found[s].push_back({e, &found->second});
      }
    }
    for (int s = 0; s < num_sparse; ++s) {
      int64_t total = 0, longest = 0;
      for (const auto& [e, f] : sparse_found[s]) {
        total += FeatureSize(*f);
        longest = std::max(longest, FeatureSize(*f));
      }
      const int64_t rank = batched ? 2 : 1;
      Tensor* indices = nullptr;
      Tensor* values = nullptr;
      Tensor* shape = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(s, TensorShape({total, rank}), &indices));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(num_sparse + s, TensorShape({total}), &values));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(2 * num_sparse + s, TensorShape({rank}), &shape));
      int64_t k = 0;
      for (const auto& [e, f] : sparse_found[s]) {
        CopyFeature(*f, values, k);
        for (int64_t i = 0; i < FeatureSize(*f); ++i, ++k) {
          if (batched) {
            indices->base<int64_t>()[2 * k] = e;
            indices->base<int64_t>()[2 * k + 1] = i;
          } else {
            indices->base<int64_t>()[k] = i;
          }
        }
      }
      if (batched) {
        shape->base<int64_t>()[0] = n;
        shape->base<int64_t>()[1] = longest;
      } else {
        shape->base<int64_t>()[0] = longest;
      }
    }
  }

 private:
  // The keys (from attrs or inputs) with their types and shapes; where the defaults start.
  Status Specs(OpKernelContext* ctx, std::vector<DenseSpec>* dense, std::vector<SparseSpec>* sparse,
               int* defaults_input) const {
    std::vector<std::string> sparse_keys = sparse_keys_, dense_keys = dense_keys_;
    auto strings_of = [&](int input, std::vector<std::string>* out) {
      const Tensor& t = ctx->input(input);
      for (int64_t i = 0; i < t.NumElements(); ++i) out->push_back(t.base<std::string>()[i]);
    };
    if (variant_ == Variant::kV1) {
      const int ns = static_cast<int>(sparse_types_.size()), nd = static_cast<int>(dense_types_.size());
      for (int i = 0; i < ns; ++i) strings_of(2 + i, &sparse_keys);
      for (int i = 0; i < nd; ++i) strings_of(2 + ns + i, &dense_keys);
      *defaults_input = 2 + ns + nd;
    } else if (variant_ == Variant::kV2) {
      strings_of(2, &sparse_keys);
      strings_of(3, &dense_keys);
      if (ctx->input(4).NumElements() > 0) {
        return errors::Unimplemented("node '", name(), "': ragged features are not supported");
      }
      *defaults_input = 5;
    } else {
      *defaults_input = 1;
    }
    if (sparse_keys.size() != sparse_types_.size() || dense_keys.size() != dense_types_.size()) {
      return errors::InvalidArgument("node '", name(), "': ", sparse_keys.size(), " sparse keys for ",
                                     sparse_types_.size(), " sparse types and ", dense_keys.size(),
                                     " dense keys for ", dense_types_.size(), " dense types");
    }
    for (size_t i = 0; i < dense_keys.size(); ++i) {
      std::vector<int64_t> dims;
      for (int d = 0; d < dense_shapes_[i].dims(); ++d) dims.push_back(dense_shapes_[i].dim_size(d));
      dense->push_back({dense_keys[i], dense_types_[i], TensorShape(dims), Tensor()});
    }
    for (size_t i = 0; i < sparse_keys.size(); ++i) sparse->push_back({sparse_keys[i], sparse_types_[i]});
    return Status::OK();
  }

  Variant variant_ = Variant::kV1;
  DataTypeVector dense_types_, sparse_types_;
  std::vector<PartialTensorShape> dense_shapes_;
  std::vector<std::string> sparse_keys_, dense_keys_;
};

REGISTER_KERNEL(Name("ParseExample").Device(DEVICE_CPU), ParseExampleOp);
REGISTER_KERNEL(Name("ParseExampleV2").Device(DEVICE_CPU), ParseExampleOp);
REGISTER_KERNEL(Name("ParseSingleExample").Device(DEVICE_CPU), ParseExampleOp);

}  // namespace
}  // namespace tensoract
