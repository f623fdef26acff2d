// Talking to a tensoract master without the Session class: this program builds
// TensorFlow's master-service messages itself (CreateSessionRequest with a GraphDef,
// RunStepRequest with a fed tensor, CloseSessionRequest), sends them to a running node's
// master as the control protocol's RPC (actors/rpc.h: method name + protobuf bytes) and
// reads TensorFlow's responses. Any program that can write these protobufs can drive a
// tensoract cluster the same way.
//
//   TENSORACT_CLUSTER_TOKEN=... ./build/examples/run_step_request 127.0.0.1:2222
//
// Prints "y = [3 5 7 9]" for the graph y = 2 * x + 1 fed x = [1 2 3 4].
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/rpc.h"
#include "bootstrap/node_auth.h"
#include "kernels/tensor.h"
#include "messages/master.pb.h"

namespace {

using tensoract::Status;

// One RPC: the method, the request proto; fills the response proto.
Status Call(caf::actor_system& system, const caf::actor& node, const std::string& method,
            const google::protobuf::Message& request, google::protobuf::Message* response) {
  caf::scoped_actor self{system};
  Status status;
  self->request(node, std::chrono::seconds(30), tensoract::rpc_atom::value, method, request.SerializeAsString())
      .receive(
          [&](int32_t code, std::string& message, std::string& bytes) {
            status = tensoract::RpcStatus(code, message);
            if (status.ok() && !response->ParseFromString(bytes)) {
              status = tensoract::errors::DataLoss("cannot parse the ", method, " response");
            }
          },
          [&](caf::error& e) { status = tensoract::errors::Unavailable(method, ": ", system.render(e)); });
  return status;
}

// y = 2 * x + 1, written as a TensorFlow GraphDef by hand.
tensorflow::GraphDef Graph() {
  tensorflow::GraphDef graph;
  auto* x = graph.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  auto constant = [&](const char* name, float v) {
    auto* c = graph.add_node();
    c->set_name(name);
    c->set_op("Const");
    (*c->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
    auto* t = (*c->mutable_attr())["value"].mutable_tensor();
    t->set_dtype(tensorflow::DT_FLOAT);
    t->add_float_val(v);
  };
  constant("two", 2.f);
  constant("one", 1.f);
  auto* mul = graph.add_node();
  mul->set_name("twice");
  mul->set_op("Mul");
  mul->add_input("two");
  mul->add_input("x");
  (*mul->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  auto* add = graph.add_node();
  add->set_name("y");
  add->set_op("AddV2");
  add->add_input("twice");
  add->add_input("one");
  (*add->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  return graph;
}

int Fail(const Status& s) {
  std::cerr << "run_step_request: " << s << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: run_step_request HOST:PORT (token in $TENSORACT_CLUSTER_TOKEN)\n";
    return 2;
  }
  std::string where = argv[1];
  size_t colon = where.rfind(':');
  if (colon == std::string::npos) {
    std::cerr << "run_step_request: '" << where << "' is not HOST:PORT\n";
    return 2;
  }
  auto token = tensoract::LoadClusterToken("");
  if (!token.ok()) return Fail(token.status());

  // The actor system joins the cluster: every connection it makes proves the token.
  caf::actor_system_config config;
  auto configured = tensoract::ConfigureClusterTransport(config, tensoract::ClusterCredentials::FromToken(*token));
  if (!configured.ok()) return Fail(configured);
  caf::actor_system system{config};
  auto node = tensoract::ConnectToNode(system, where.substr(0, colon),
                                       static_cast<uint16_t>(std::stoi(where.substr(colon + 1))),
                                       std::chrono::seconds(10));
  if (!node.ok()) return Fail(node.status());

  tensorflow::CreateSessionRequest create;
  *create.mutable_graph_def() = Graph();
  tensorflow::CreateSessionResponse created;
  Status s = Call(system, *node, "CreateSession", create, &created);
  if (!s.ok()) return Fail(s);

  tensorflow::RunStepRequest run;
  run.set_session_handle(created.session_handle());
  auto* feed = run.add_feed();
  feed->set_name("x");
  tensoract::Tensor::FromVector<float>({1, 2, 3, 4}).AsProtoTensorContent(feed->mutable_tensor());
  run.add_fetch("y");
  run.mutable_options()->set_timeout_in_ms(30000);
  tensorflow::RunStepResponse ran;
  s = Call(system, *node, "RunStep", run, &ran);
  if (!s.ok()) return Fail(s);
  auto y = tensoract::Tensor::FromProto(ran.tensor(0).tensor());
  if (!y.ok()) return Fail(y.status());
  std::cout << ran.tensor(0).name() << " = " << y->SummarizeValue(10) << std::endl;

  tensorflow::CloseSessionRequest close;
  close.set_session_handle(created.session_handle());
  tensorflow::CloseSessionResponse closed;
  s = Call(system, *node, "CloseSession", close, &closed);
  return s.ok() ? 0 : Fail(s);
}
