// checkpoint_tool: the tensoract side of tests/compat/tf_checkpoint_compat.py.
//
//   checkpoint_tool write PREFIX   writes a bundle of several dtypes and shapes
//   checkpoint_tool read PREFIX    reads every tensor of a bundle
//   checkpoint_tool saver DIR      saves a ref and a resource variable with a Saver at
//                                  steps 1 and 2 (DIR/model.ckpt-1, -2, DIR/checkpoint)
//
// Each prints JSON on stdout: {"tensors": {name: {"dtype", "shape", "values"}}} with the
// values flattened (strings as hex of their bytes), or {"error": code, "message": ...}
// and exit status 1.
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <type_traits>

#include <Eigen/Core>

#include "client/saver.h"
#include "base/json_string.h"
#include "graph/builder/ops.h"
#include "kernels/checkpoint/tensor_bundle.h"
#include "kernels/tensor.h"

namespace tensoract {
namespace {

std::string Hex(const std::string& s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

template <class T>
void Numbers(const Tensor& t, std::ostream& os) {
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (i) os << ",";
    if constexpr (std::is_floating_point_v<T>) {
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%.17g", static_cast<double>(t.base<T>()[i]));
      os << buf;
    } else {
      os << static_cast<int64_t>(t.base<T>()[i]);
    }
  }
}

Status TensorJson(const Tensor& t, std::ostream& os) {
  os << "{\"dtype\": " << JsonString(DataTypeString(t.dtype())) << ", \"shape\": [";
  for (int d = 0; d < t.dims(); ++d) os << (d ? "," : "") << t.dim_size(d);
  os << "], \"values\": [";
  switch (t.dtype()) {
    case tensorflow::DT_FLOAT: Numbers<float>(t, os); break;
    case tensorflow::DT_DOUBLE: Numbers<double>(t, os); break;
    case tensorflow::DT_INT32: Numbers<int32_t>(t, os); break;
    case tensorflow::DT_INT64: Numbers<int64_t>(t, os); break;
    case tensorflow::DT_INT16: Numbers<int16_t>(t, os); break;
    case tensorflow::DT_INT8: Numbers<int8_t>(t, os); break;
    case tensorflow::DT_UINT8: Numbers<uint8_t>(t, os); break;
    case tensorflow::DT_UINT16: Numbers<uint16_t>(t, os); break;
    case tensorflow::DT_BOOL:
      for (int64_t i = 0; i < t.NumElements(); ++i) os << (i ? "," : "") << (t.base<bool>()[i] ? "true" : "false");
      break;
    case tensorflow::DT_HALF:
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        char buf[40];
        std::snprintf(buf, sizeof(buf), "%.17g", static_cast<double>(static_cast<float>(t.base<Eigen::half>()[i])));
        os << (i ? "," : "") << buf;
      }
      break;
    case tensorflow::DT_STRING:
      for (int64_t i = 0; i < t.NumElements(); ++i) os << (i ? "," : "") << JsonString(Hex(t.base<std::string>()[i]));
      break;
    default:
      return errors::Unimplemented("checkpoint_tool cannot print ", DataTypeString(t.dtype()));
  }
  os << "]}";
  return Status::OK();
}

Status PrintBundle(const BundleReader& r, std::ostream& os) {
  os << "{\"tensors\": {";
  bool first = true;
  for (const std::string& key : r.keys()) {
    Tensor t;
    TA_RETURN_IF_ERROR(r.Lookup(key, &t));
    os << (first ? "" : ", ") << JsonString(key) << ": ";
    TA_RETURN_IF_ERROR(TensorJson(t, os));
    first = false;
  }
  os << "}}\n";
  return Status::OK();
}

Status Write(const std::string& prefix, std::ostream& os) {
  BundleWriter w(prefix);
  TA_RETURN_IF_ERROR(w.Add("dense/kernel", Tensor::FromVector<float>({0.5f, -1.25f, 3.f, 1e-20f, -7.f, 2.5e10f},
                                                                    TensorShape({2, 3}))));
  TA_RETURN_IF_ERROR(w.Add("dense/bias", Tensor::FromVector<double>({3.141592653589793, -2.718281828459045})));
  TA_RETURN_IF_ERROR(w.Add("global_step", Tensor::Scalar<int64_t>(int64_t{1} << 40)));
  TA_RETURN_IF_ERROR(w.Add("counts", Tensor::FromVector<int32_t>({-1, 0, 1, 2147483647}, TensorShape({2, 1, 2}))));
  TA_RETURN_IF_ERROR(w.Add("mask", Tensor::FromVector<bool>({true, false, false, true, true})));
  TA_RETURN_IF_ERROR(w.Add("bytes", Tensor::FromVector<uint8_t>({0, 127, 255})));
  TA_RETURN_IF_ERROR(w.Add("vocab", Tensor::FromVector<std::string>({"", "hello", std::string("a\0b", 3),
                                                                     std::string(200, 'z')})));
  TA_RETURN_IF_ERROR(w.Add("name", Tensor::Scalar<std::string>("tensoract")));
  TA_RETURN_IF_ERROR(w.Add("empty", Tensor(tensorflow::DT_FLOAT, TensorShape({0, 4}))));
  TA_RETURN_IF_ERROR(w.Add("empty_strings", Tensor(tensorflow::DT_STRING, TensorShape({0}))));
  TA_RETURN_IF_ERROR(w.Finish());
  TA_ASSIGN_OR_RETURN(auto r, BundleReader::Open(prefix));
  return PrintBundle(*r, os);
}

Status Read(const std::string& prefix, std::ostream& os) {
  TA_ASSIGN_OR_RETURN(auto r, BundleReader::Open(prefix));
  return PrintBundle(*r, os);
}

Status SaveWithSaver(const std::string& dir, std::ostream& os) {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w"), PartialTensorShape({2, 2}), tensorflow::DT_FLOAT);
  ops::Assign(root.WithOpName("w_init"), w, {{1.f, 2.f}, {3.f, 4.f}});
  ops::AssignAdd(root.WithOpName("w_inc"), w, {{0.5f, 0.5f}, {0.5f, 0.5f}});
  auto v = ops::VarHandleOp(root.WithOpName("v"), tensorflow::DT_INT64, PartialTensorShape({3}));
  ops::AssignVariableOp(root.WithOpName("v_init"), v, Input({int64_t{10}, int64_t{20}, int64_t{30}}));
  TA_ASSIGN_OR_RETURN(Saver saver, Saver::New(root, {w, v}));
  tensorflow::GraphDef def;
  TA_RETURN_IF_ERROR(root.ToGraphDef(&def));
  TA_ASSIGN_OR_RETURN(auto session, Session::New());
  TA_RETURN_IF_ERROR(session->Create(def));
  TA_RETURN_IF_ERROR(session->Run({}, {}, {"w_init", "v_init"}, nullptr));
  TA_RETURN_IF_ERROR(saver.Save(*session, dir + "/model.ckpt", 1).status());
  TA_RETURN_IF_ERROR(session->Run({}, {}, {"w_inc"}, nullptr));
  TA_ASSIGN_OR_RETURN(std::string last, saver.Save(*session, dir + "/model.ckpt", 2));
  TA_ASSIGN_OR_RETURN(auto r, BundleReader::Open(last));
  return PrintBundle(*r, os);
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) {
  using namespace tensoract;
  if (argc != 3) {
    std::cerr << "usage: checkpoint_tool write|read|saver PATH\n";
    return 2;
  }
  const std::string cmd = argv[1], path = argv[2];
  std::ostringstream out;
  Status s;
  if (cmd == "write") {
    s = Write(path, out);
  } else if (cmd == "read") {
    s = Read(path, out);
  } else if (cmd == "saver") {
    s = SaveWithSaver(path, out);
  } else {
    std::cerr << "unknown command " << cmd << "\n";
    return 2;
  }
  if (!s.ok()) {
    std::cout << "{\"error\": " << JsonString(ErrorCodeName(s.code())) << ", \"message\": " << JsonString(s.message()) << "}\n";
    return 1;
  }
  std::cout << out.str();
  return 0;
}
