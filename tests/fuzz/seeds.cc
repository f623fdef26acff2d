#include "tests/fuzz/seeds.h"

#include <filesystem>
#include <fstream>
#include <vector>

#include <capnp/message.h>

#include "actors/data_plane/wire.h"
#include "actors/rpc_requests.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "messages/tensor.pb.h"
#include "kernels/io/record_io.h"
#include "messages/master.pb.h"
#include "messages/tensor_frame.capnp.h"
#include "messages/tensoract_worker.pb.h"
#include "messages/worker.pb.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace fuzz {
namespace {

namespace fs = std::filesystem;

void WriteAll(const fs::path& dir, const std::vector<std::string>& seeds) {
  fs::create_directories(dir);
  for (size_t i = 0; i < seeds.size(); ++i) {
    std::ofstream out(dir / ("seed_" + std::to_string(i)), std::ios::binary);
    out << seeds[i];
  }
}

std::string Bytes(capnp::MessageBuilder& message) {
  kj::Array<capnp::word> words = data_plane::Encode(message);
  auto bytes = words.asBytes();
  return std::string(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
}

std::vector<std::string> Graphs() {
  std::vector<std::string> out;
  {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({2, 2}));
    auto w = ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}});
    ops::Add(root.WithOpName("y"), ops::MatMul(root, x, w), 1.f);
    tensorflow::GraphDef def;
    if (root.ToGraphDef(&def).ok()) out.push_back(def.SerializeAsString());
  }
  out.push_back(testing::CountingLoopGraph(10).SerializeAsString());
  return out;
}

std::vector<std::string> TensorProtos() {
  std::vector<std::string> out;
  tensorflow::TensorProto proto;
  Tensor::FromVector<float>({1.f, 2.f, 3.f, 4.f}, TensorShape({2, 2})).AsProtoTensorContent(&proto);
  out.push_back(proto.SerializeAsString());
  proto.Clear();
  Tensor::FromVector<int64_t>({7, 8, 9}).AsProtoField(&proto);
  out.push_back(proto.SerializeAsString());
  proto.Clear();
  Tensor::FromVector<std::string>({"a", "bc", ""}).AsProtoField(&proto);
  out.push_back(proto.SerializeAsString());
  // One value spread over a huge shape: refused by the expansion limit, not allocated.
  proto.Clear();
  proto.set_dtype(tensorflow::DT_FLOAT);
  proto.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 33);
  proto.add_float_val(1.f);
  out.push_back(proto.SerializeAsString());
  return out;
}

// A reader selector byte, then a file: two TFRecords; three fixed-length records.
std::vector<std::string> RecordFiles() {
  return {std::string(1, '\0') + EncodeRecord("first") + EncodeRecord(""),
          std::string(1, '\3') + "abcdefghijkl", std::string(1, '\2') + "header\nline\n"};
}

std::vector<std::string> ControlRequests() {
  const std::vector<std::string>& methods = rpc::Methods();
  std::string graph = Graphs().front();
  tensorflow::GraphDef def;
  def.ParseFromString(graph);
  std::vector<std::string> out;
  for (size_t i = 0; i < methods.size(); ++i) {
    const std::string& m = methods[i];
    std::string body;
    if (m == "CreateSession") {
      tensorflow::CreateSessionRequest r;
      *r.mutable_graph_def() = def;
      body = r.SerializeAsString();
    } else if (m == "RegisterGraph") {
      tensorflow::RegisterGraphRequest r;
      *r.mutable_graph_def() = def;
      body = r.SerializeAsString();
    } else if (m == "RunStep") {
      tensorflow::RunStepRequest r;
      r.set_session_handle("0123456789abcdef");
      auto* feed = r.add_feed();
      feed->set_name("x:0");
      Tensor::FromVector<float>({1.f, 2.f, 3.f, 4.f}, TensorShape({2, 2})).AsProtoTensorContent(feed->mutable_tensor());
      r.add_fetch("y:0");
      r.mutable_options()->set_timeout_in_ms(1000);
      body = r.SerializeAsString();
    } else if (m == "RunGraph") {
      tensorflow::RunGraphRequest r;
      r.set_graph_handle("graph_0123456789abcdef");
      r.set_step_id(42);
      body = r.SerializeAsString();
    } else if (m == "SetPeers") {
      tensoract::PeerDirectoryRequest r;
      (*r.mutable_data_plane_by_task())["/job:worker/replica:0/task:0"] = "127.0.0.1:2223";
      body = r.SerializeAsString();
    } else if (m == "AbortStep") {
      tensoract::AbortStepRequest r;
      r.set_step_id(42);
      r.set_code(tensorflow::error::ABORTED);
      r.set_message("aborted elsewhere");
      body = r.SerializeAsString();
    } else if (m == "Reset" || m == "CleanupAll") {
      tensorflow::ResetRequest r;  // CleanupAllRequest has the same field 1
      r.add_container("c");
      body = r.SerializeAsString();
    } else {
      tensorflow::CloseSessionRequest r;  // a string in field 1, as the other methods' first
      r.set_session_handle("0123456789abcdef");
      body = r.SerializeAsString();
    }
    out.push_back(std::string(1, static_cast<char>(i)) + body);
  }
  return out;
}

std::vector<std::string> ServerRequests() {
  std::string all;
  uint64_t id = 1;
  for (const char* key : {"float", "dead", "string", "missing", "float"}) {
    capnp::MallocMessageBuilder message;
    auto r = message.initRoot<RecvTensorRequest>();
    r.setRequestId(id);
    r.setStepId(1);
    r.setKey(key);
    r.setLossy16(id == 5);
    ++id;
    all += Bytes(message);
  }
  return {all};
}

std::vector<std::string> ClientReplies() {
  // Request 1: three floats in one frame. Request 2: lossy16, one element in the frame and
  // one in a chunk. Request 3: an error, or (the second seed) two strings as a TensorProto.
  std::string all;
  {
    capnp::MallocMessageBuilder message;
    auto f = message.initRoot<DataPlaneReply>().initFrame();
    f.setRequestId(1);
    f.setKey("a");
    f.setDtype(tensorflow::DT_FLOAT);
    f.initShape(1).set(0, 3);
    f.setByteLength(12);
    f.setFirstChunk(12);
    all += Bytes(message);
    const float v[3] = {1.f, 2.f, 3.f};
    all.append(reinterpret_cast<const char*>(v), sizeof v);
  }
  {
    capnp::MallocMessageBuilder message;
    auto f = message.initRoot<DataPlaneReply>().initFrame();
    f.setRequestId(2);
    f.setKey("b");
    f.setDtype(tensorflow::DT_FLOAT);
    f.initShape(1).set(0, 2);
    f.setLossy16(true);
    f.setByteLength(4);
    f.setFirstChunk(2);
    all += Bytes(message);
    all.append("\x80\x3f", 2);
    capnp::MallocMessageBuilder chunk_message;
    auto c = chunk_message.initRoot<DataPlaneReply>().initChunk();
    c.setRequestId(2);
    c.setOffset(2);
    c.setLength(2);
    all += Bytes(chunk_message);
    all.append("\x00\x40", 2);
  }
  const size_t before_error = all.size();
  {
    capnp::MallocMessageBuilder message;
    auto f = message.initRoot<DataPlaneReply>().initFrame();
    f.setRequestId(3);
    f.setKey("c");
    f.setStatusCode(5);
    f.setStatusMessage("not found");
    all += Bytes(message);
  }
  // The same first two, then request 3 answered with a string tensor as a TensorProto.
  std::string encoded = all.substr(0, before_error);
  {
    tensorflow::TensorProto proto;
    Tensor::FromVector<std::string>({"a", "bc"}).AsProtoTensorContent(&proto);
    const std::string payload = proto.SerializeAsString();
    capnp::MallocMessageBuilder message;
    auto f = message.initRoot<DataPlaneReply>().initFrame();
    f.setRequestId(3);
    f.setKey("c");
    f.setDtype(tensorflow::DT_STRING);
    f.initShape(1).set(0, 2);
    f.setEncoded(true);
    f.setByteLength(payload.size());
    f.setFirstChunk(payload.size());
    encoded += Bytes(message) + payload;
  }
  return {all, encoded};
}

}  // namespace

void WriteSeeds(const std::string& corpus_dir) {
  const fs::path corpus(corpus_dir);
  WriteAll(corpus / "graph_def", Graphs());
  WriteAll(corpus / "tensor_proto", TensorProtos());
  WriteAll(corpus / "control_request", ControlRequests());
  WriteAll(corpus / "data_plane_server", ServerRequests());
  WriteAll(corpus / "data_plane_client", ClientReplies());
  WriteAll(corpus / "record_file", RecordFiles());
}

}  // namespace fuzz
}  // namespace tensoract
