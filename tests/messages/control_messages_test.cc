// The control protocol's messages (master.proto, worker.proto, tensoract_worker.proto) and
// the session configuration they carry (config.proto, cluster.proto, ...) survive bytes
// and text unchanged, with every field of every message set.
//
// pip's TensorFlow has no descriptors for master.proto and worker.proto, so their field
// numbers are checked against a table transcribed from TensorFlow's files by
// compare_with_tensorflow.py (ctest messages_match_tensorflow); config.proto and the
// others are compared there with TensorFlow's own descriptors. Here: that nothing is lost
// in our own serialisation, that the numbers that matter most for interoperability are
// TensorFlow's, and that a field added to one of these files without a fixture is noticed.
#include <google/protobuf/any.pb.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/util/message_differencer.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/proto_io.h"
#include "base/status.h"
#include "messages/cluster.pb.h"
#include "messages/config.pb.h"
#include "messages/cost_graph.pb.h"
#include "messages/debug.pb.h"
#include "messages/master.pb.h"
#include "messages/named_tensor.pb.h"
#include "messages/tensoract_worker.pb.h"
#include "messages/tensorflow_server.pb.h"
#include "messages/worker.pb.h"
#include "tests/messages/fixtures.h"
#include "tests/messages/round_trip_util.h"

// The fixtures set TensorFlow's deprecated fields too: they still travel on the wire.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace tensoract {
namespace {

using namespace testing;  // the fixtures
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::util::MessageDifferencer;
namespace tf = ::tensorflow;
using Fixtures = std::vector<std::pair<std::string, std::shared_ptr<Message>>>;

// ---------------------------------------------------------------------------------------
// Fixtures: every field set to something other than its default.

tf::ClusterDef Cluster() {
  tf::ClusterDef c;
  tf::JobDef* worker = c.add_job();
  worker->set_name("worker");
  (*worker->mutable_tasks())[0] = "localhost:2222";
  (*worker->mutable_tasks())[3] = "host-b:2222";  // task indices need not be contiguous
  tf::JobDef* ps = c.add_job();
  ps->set_name("ps");
  (*ps->mutable_tasks())[1] = "[::1]:2223";
  return c;
}

tf::DebugOptions Debug() {
  tf::DebugOptions d;
  tf::DebugTensorWatch* w = d.add_debug_tensor_watch_opts();
  w->set_node_name("w");
  w->set_output_slot(1);
  w->add_debug_ops("DebugIdentity");
  w->add_debug_ops("DebugNanCount");
  w->add_debug_urls("file:///tmp/dbg");
  w->set_tolerate_debug_op_creation_failures(true);
  d.set_global_step(12);
  d.set_reset_disk_byte_usage(true);
  return d;
}

tf::CostGraphDef Cost() {
  tf::CostGraphDef c;
  tf::CostGraphDef::Node* n = c.add_node();
  n->set_name("c");
  n->set_device("/job:worker/replica:0/task:0/device:CPU:0");
  n->set_id(1);
  auto* in = n->add_input_info();
  in->set_preceding_node(2);
  in->set_preceding_port(1);
  auto* out = n->add_output_info();
  out->set_size(24);
  out->set_alias_input_port(-1);
  *out->mutable_shape() = Shape({2, 3});
  out->set_dtype(tf::DT_FLOAT);
  n->set_temporary_memory_size(8);
  n->set_persistent_memory_size(16);
  n->set_host_temp_memory_size(1);
  n->set_device_temp_memory_size(2);
  n->set_device_persistent_memory_size(3);
  n->set_compute_cost(4);
  n->set_compute_time(5);
  n->set_memory_time(6);
  n->set_is_final(true);
  n->add_control_input(0);
  n->add_control_input(2);
  n->set_inaccurate(true);
  auto* total = c.add_cost();
  total->set_cost(1.5f);
  total->set_dimension("flops");
  return c;
}

tf::ConfigProto Config() {
  tf::ConfigProto c;
  (*c.mutable_device_count())["CPU"] = 4;
  (*c.mutable_device_count())["GPU"] = 0;
  c.set_intra_op_parallelism_threads(2);
  c.set_inter_op_parallelism_threads(-1);
  c.set_use_per_session_threads(true);
  auto* pool = c.add_session_inter_op_thread_pool();
  pool->set_num_threads(3);
  pool->set_global_name("shared");
  c.set_placement_period(10);
  c.add_device_filters("/job:ps");
  c.add_device_filters("/job:worker/task:3");
  c.set_allow_soft_placement(true);
  c.set_log_device_placement(true);
  tf::GraphOptions* g = c.mutable_graph_options();
  g->set_enable_recv_scheduling(true);
  tf::OptimizerOptions* o = g->mutable_optimizer_options();
  o->set_do_common_subexpression_elimination(true);
  o->set_do_constant_folding(true);
  o->set_max_folded_constant_in_bytes(int64_t{1} << 20);
  o->set_do_function_inlining(true);
  o->set_opt_level(tf::OptimizerOptions::L0);
  o->set_global_jit_level(tf::OptimizerOptions::OFF);
  o->set_cpu_global_jit(true);
  g->set_build_cost_model(5);
  g->set_build_cost_model_after(2);
  g->set_infer_shapes(true);
  g->set_place_pruned_graph(true);
  g->set_enable_bfloat16_sendrecv(true);
  g->set_timeline_step(7);
  c.set_operation_timeout_in_ms(60000);
  *c.mutable_cluster_def() = Cluster();
  c.set_isolate_session_state(true);
  c.set_share_cluster_devices_in_session(true);
  tf::ConfigProto::Experimental* x = c.mutable_experimental();
  x->set_collective_group_leader("/job:worker/replica:0/task:0");
  x->set_executor_type("DEFAULT");
  x->set_recv_buf_max_chunk(4096);
  x->set_use_numa_affinity(true);
  x->set_disable_thread_spinning(true);
  x->set_share_cluster_devices_in_session(true);
  x->mutable_session_metadata()->set_name("model");
  x->mutable_session_metadata()->set_version(9);
  x->set_optimize_for_static_graph(true);
  x->set_disable_output_partition_graphs(true);
  x->set_disable_functional_ops_lowering(true);
  return c;
}

tf::RunOptions RunOpts() {
  tf::RunOptions r;
  r.set_trace_level(tf::RunOptions::FULL_TRACE);
  r.set_timeout_in_ms(1500);
  r.set_inter_op_thread_pool(1);
  r.set_output_partition_graphs(true);
  *r.mutable_debug_options() = Debug();
  r.set_report_tensor_allocations_upon_oom(true);
  r.mutable_experimental()->set_collective_graph_key(77);
  r.mutable_experimental()->set_use_run_handler_pool(true);
  r.mutable_experimental()->mutable_run_handler_pool_options()->set_priority(-2);
  return r;
}

tf::StepStats Stats() {
  tf::StepStats s;
  auto* dev = s.add_dev_stats();
  dev->set_device("/job:worker/replica:0/task:0/device:CPU:0");
  auto* node = dev->add_node_stats();
  node->set_node_name("c");
  node->set_all_start_micros(100);
  node->set_op_end_rel_micros(3);
  return s;
}

tf::RunMetadata Metadata() {
  tf::RunMetadata m;
  *m.mutable_step_stats() = Stats();
  *m.mutable_cost_graph() = Cost();
  *m.add_partition_graphs() = Graph();
  auto* fg = m.add_function_graphs();
  *fg->add_partition_graphs() = Graph();
  *fg->mutable_pre_optimization_graph() = Graph();
  fg->mutable_post_optimization_graph()->add_node()->set_name("only");
  m.mutable_session_metadata()->set_name("model");
  m.mutable_session_metadata()->set_version(9);
  return m;
}

tf::CallableOptions Callable() {
  tf::CallableOptions c;
  c.add_feed("x:0");
  c.add_fetch("y:0");
  c.add_target("train");
  *c.mutable_run_options() = RunOpts();
  auto* conn = c.add_tensor_connection();
  conn->set_from_tensor("a:0");
  conn->set_to_tensor("x:0");
  (*c.mutable_feed_devices())["x:0"] = "/job:worker/replica:0/task:0/device:CPU:0";
  (*c.mutable_fetch_devices())["y:0"] = "/job:worker/replica:0/task:0/device:CPU:1";
  c.set_fetch_skip_sync(true);
  return c;
}

tf::ServerDef Server() {
  tf::ServerDef s;
  *s.mutable_cluster() = Cluster();
  s.set_job_name("worker");
  s.set_replica(1);
  s.set_task_index(3);
  *s.mutable_default_session_config() = Config();
  s.set_protocol("caf");
  s.set_port(2222);
  return s;
}

tf::NamedTensorProto Named(const std::string& name) {
  tf::NamedTensorProto n;
  n.set_name(name);
  *n.mutable_tensor() = FloatTensor();
  return n;
}

google::protobuf::Any Transport() {
  google::protobuf::Any any;
  *any.mutable_type_url() = "type.googleapis.com/tensorflow.DeviceLocality";
  any.set_value(std::string("\x08\x01", 2));
  return any;
}

Fixtures ControlFixtures() {
  Fixtures out;
  auto add = [&](const Message& m) {
    out.emplace_back(m.GetTypeName(), std::shared_ptr<Message>(m.New()));
    out.back().second->CopyFrom(m);
  };
  add(Cluster());
  add(Debug());
  add(Cost());
  add(Config());
  add(RunOpts());
  add(Metadata());
  add(Callable());
  add(Server());
  add(Named("x:0"));

  // master.proto
  tf::CreateSessionRequest create;
  *create.mutable_graph_def() = Graph();
  *create.mutable_config() = Config();
  create.set_target("caf://localhost:2222");
  add(create);
  tf::CreateSessionResponse created;
  created.set_session_handle("session-1");
  created.set_graph_version(3);
  add(created);
  tf::ExtendSessionRequest extend;
  extend.set_session_handle("session-1");
  *extend.mutable_graph_def() = Graph();
  extend.set_current_graph_version(3);
  add(extend);
  tf::ExtendSessionResponse extended;
  extended.set_new_graph_version(4);
  add(extended);
  tf::RunStepRequest run;
  run.set_session_handle("session-1");
  *run.add_feed() = Named("x:0");
  *run.add_feed() = Named("keep_prob");
  run.add_fetch("y:0");
  run.add_fetch("loss");
  run.add_target("train");
  *run.mutable_options() = RunOpts();
  run.set_partial_run_handle("partial-7");
  run.set_store_errors_in_response_body(true);
  run.set_request_id(-5);
  add(run);
  tf::RunStepResponse ran;
  *ran.add_tensor() = Named("y:0");
  *ran.mutable_metadata() = Metadata();
  ran.set_status_code(tf::error::DEADLINE_EXCEEDED);
  ran.set_status_error_message("step 12 timed out after 1500 ms");
  add(ran);
  tf::PartialRunSetupRequest setup;
  setup.set_session_handle("session-1");
  setup.add_feed("x:0");
  setup.add_fetch("y:0");
  setup.add_target("train");
  setup.set_request_id(8);
  add(setup);
  tf::PartialRunSetupResponse set_up;
  set_up.set_partial_run_handle("partial-7");
  add(set_up);
  tf::CloseSessionRequest close;
  close.set_session_handle("session-1");
  add(close);
  tf::ResetRequest reset;
  reset.add_container("");
  reset.add_container("experiment");
  reset.add_device_filters("/job:ps");
  add(reset);
  tf::ListDevicesRequest list;
  list.set_session_handle("session-1");
  add(list);
  tf::ListDevicesResponse devices;
  *devices.add_local_device() = Device();
  *devices.add_remote_device() = Device();
  add(devices);
  tf::MakeCallableRequest make;
  make.set_session_handle("session-1");
  *make.mutable_options() = Callable();
  make.set_request_id(9);
  add(make);
  tf::MakeCallableResponse made;
  made.set_handle(2);
  add(made);
  tf::RunCallableRequest call;
  call.set_session_handle("session-1");
  call.set_handle(2);
  *call.add_feed() = FloatTensor();
  call.set_request_id(10);
  add(call);
  tf::RunCallableResponse called;
  *called.add_fetch() = FloatTensor();
  *called.mutable_metadata() = Metadata();
  add(called);
  tf::ReleaseCallableRequest release;
  release.set_session_handle("session-1");
  release.set_handle(2);
  add(release);

  // worker.proto
  tf::GetStatusResponse status;
  *status.add_device_attributes() = Device();
  add(status);
  tf::CreateWorkerSessionRequest create_ws;
  create_ws.set_session_handle("session-1");
  *create_ws.mutable_server_def() = Server();
  create_ws.set_isolate_session_state(true);
  *create_ws.add_cluster_device_attributes() = Device();
  add(create_ws);
  tf::DeleteWorkerSessionRequest delete_ws;
  delete_ws.set_session_handle("session-1");
  add(delete_ws);
  tf::RegisterGraphRequest reg;
  reg.set_session_handle("session-1");
  reg.set_create_worker_session_called(true);
  *reg.mutable_graph_def() = Graph();
  reg.set_has_control_flow(true);
  *reg.mutable_graph_options() = Config().graph_options();
  *reg.mutable_debug_options() = Debug();
  reg.set_collective_graph_key(77);
  *reg.mutable_config_proto() = Config();
  add(reg);
  tf::RegisterGraphResponse registered;
  registered.set_graph_handle("graph-3");
  add(registered);
  tf::DeregisterGraphRequest dereg;
  dereg.set_session_handle("session-1");
  dereg.set_create_worker_session_called(true);
  dereg.set_graph_handle("graph-3");
  add(dereg);
  tf::CleanupAllRequest cleanup_all;
  cleanup_all.add_container("experiment");
  add(cleanup_all);
  tf::RunGraphRequest run_graph;
  run_graph.set_session_handle("session-1");
  run_graph.set_create_worker_session_called(true);
  run_graph.set_graph_handle("graph-3");
  run_graph.set_step_id(int64_t{0x7edcba9876543210});
  auto* exec = run_graph.mutable_exec_opts();
  exec->set_record_costs(true);
  exec->set_record_timeline(true);
  exec->set_record_partition_graphs(true);
  exec->set_report_tensor_allocations_upon_oom(true);
  *run_graph.add_send() = Named(
      "/job:localhost/replica:0/task:0/device:CPU:0;0000000000000001;"
      "/job:worker/replica:0/task:1/device:CPU:0;x:0;0:0");
  run_graph.add_recv_key(
      "/job:worker/replica:0/task:1/device:CPU:0;fedcba9876543210;"
      "/job:localhost/replica:0/task:0/device:CPU:0;y:0;0:0");
  run_graph.set_is_partial(true);
  run_graph.set_is_last_partial_run(true);
  run_graph.set_store_errors_in_response_body(true);
  run_graph.set_request_id(11);
  add(run_graph);
  tf::RunGraphResponse ran_graph;
  *ran_graph.add_recv() = Named("y:0");
  *ran_graph.mutable_step_stats() = Stats();
  *ran_graph.mutable_cost_graph() = Cost();
  *ran_graph.add_partition_graph() = Graph();
  ran_graph.set_status_code(tf::error::ABORTED);
  ran_graph.set_status_error_message("step aborted by the master");
  add(ran_graph);
  tf::CleanupGraphRequest cleanup;
  cleanup.set_step_id(42);
  add(cleanup);
  tf::RecvTensorRequest recv;
  recv.set_step_id(42);
  recv.set_rendezvous_key(run_graph.recv_key(0));
  recv.set_dma_ok(true);
  *recv.mutable_client_locality() = Device().locality();
  *recv.mutable_server_locality() = Device().locality();
  *recv.mutable_transport_options() = Transport();
  recv.set_request_id(12);
  add(recv);
  tf::RecvTensorResponse received;
  *received.mutable_tensor() = FloatTensor();
  received.set_is_dead(true);
  received.set_send_start_micros(1700000000000000);
  *received.mutable_transport_options() = Transport();
  received.set_require_ack(true);
  add(received);
  tf::MarkRecvFinishedRequest finished;
  finished.set_request_id(12);
  add(finished);

  // tensoract_worker.proto
  AbortStepRequest abort;
  abort.set_step_id(42);
  abort.set_code(tf::error::CANCELLED);
  abort.set_message("the client cancelled the step");
  abort.set_session_handle("session-1");
  add(abort);
  CancelStepRequest cancel;
  cancel.set_session_handle("0123456789abcdef");
  cancel.set_request_id(77);
  add(cancel);
  HeartbeatRequest beat;
  beat.set_master_incarnation(0xfedcba9876543210ULL);
  beat.set_sequence(17);
  beat.set_lease_ms(4000);
  beat.set_client_lease_ms(4000);
  add(beat);
  HeartbeatResponse alive;
  alive.set_sequence(17);
  alive.set_worker_incarnation(0x0123456789abcdefULL);
  *alive.add_device_attributes() = Device();
  alive.add_running_step_id(42);
  alive.add_running_step_id(-1);
  alive.set_task("/job:worker/replica:0/task:1");
  alive.set_data_plane_address("127.0.0.1:41831");
  add(alive);
  PeerDirectoryRequest peers;
  (*peers.mutable_data_plane_by_task())["/job:ps/replica:0/task:0"] = "127.0.0.1:40001";
  (*peers.mutable_data_plane_by_task())["/job:worker/replica:0/task:1"] = "[::1]:40002";
  add(peers);
  RunGraphResponseExtras extras;
  extras.set_graph_not_found(true);
  add(extras);
  return out;
}

const char* const kControlProtoFiles[] = {
    "messages/cluster.proto", "messages/config.proto",  "messages/cost_graph.proto",
    "messages/debug.proto",   "messages/master.proto",  "messages/named_tensor.proto",
    "messages/tensoract_worker.proto", "messages/tensorflow_server.proto",
    "messages/worker.proto",
};

// ---------------------------------------------------------------------------------------

TEST_CASE("every control-protocol and session-config message round-trips through bytes and text") {
  for (const auto& [what, m] : ControlFixtures()) {
    DYNAMIC_SECTION(what) { RequireRoundTrips(*m); }
  }
}

TEST_CASE("a truncated RunStepRequest or RunGraphRequest is an error naming its type") {
  for (const auto& [what, m] : ControlFixtures()) {
    if (what != "tensorflow.RunStepRequest" && what != "tensorflow.RunGraphRequest") continue;
    DYNAMIC_SECTION(what) {
      std::string bytes = m->SerializeAsString();
      std::unique_ptr<Message> back(m->New());
      Status s = ParseBinaryProto(bytes.substr(0, bytes.size() - 1), back.get());
      CHECK(s.code() == error::INVALID_ARGUMENT);
      CHECK(s.message().find(what) != std::string::npos);
    }
  }
}

TEST_CASE("the control fixtures set every field of every message in their .proto files") {
  std::set<std::string> seen;
  for (const auto& [what, m] : ControlFixtures()) CollectSetFields(*m, &seen);
  std::vector<std::string> declared;
  for (const char* file : kControlProtoFiles) {
    const auto* fd = google::protobuf::DescriptorPool::generated_pool()->FindFileByName(file);
    INFO(file);
    REQUIRE(fd != nullptr);
    for (int i = 0; i < fd->message_type_count(); ++i) {
      CollectDeclaredFields(fd->message_type(i), &declared);
    }
  }
  std::string missing;
  for (const std::string& field : declared) {
    if (!seen.count(field)) missing += field + " ";
  }
  INFO("fields no fixture sets: " << missing);
  CHECK(missing.empty());
}

// The numbers a TensorFlow peer depends on, spelled out (the full table is in
// compare_with_tensorflow.py): a renumbering here would still round-trip above.
TEST_CASE("key control-protocol field numbers and enum values are TensorFlow's") {
  auto number = [](const Descriptor* d, const char* field) {
    const FieldDescriptor* f = d->FindFieldByName(field);
    INFO(d->full_name() << "." << field);
    REQUIRE(f != nullptr);
    return f->number();
  };
  CHECK(number(tf::RunStepRequest::descriptor(), "feed") == 2);
  CHECK(number(tf::RunStepRequest::descriptor(), "options") == 5);
  CHECK(number(tf::RunStepRequest::descriptor(), "request_id") == 8);
  CHECK(number(tf::RunStepResponse::descriptor(), "status_code") == 3);
  CHECK(number(tf::ExtendSessionResponse::descriptor(), "new_graph_version") == 4);
  CHECK(number(tf::RunGraphRequest::descriptor(), "session_handle") == 8);
  CHECK(number(tf::RunGraphRequest::descriptor(), "step_id") == 2);
  CHECK(number(tf::RunGraphRequest::descriptor(), "exec_opts") == 5);
  CHECK(number(tf::RunGraphRequest::descriptor(), "request_id") == 11);
  CHECK(number(tf::RegisterGraphRequest::descriptor(), "create_worker_session_called") == 6);
  CHECK(number(tf::RegisterGraphRequest::descriptor(), "config_proto") == 8);
  CHECK(number(tf::DeregisterGraphRequest::descriptor(), "graph_handle") == 1);
  CHECK(number(tf::ExecutorOpts::descriptor(), "record_timeline") == 3);
  CHECK(number(tf::CleanupGraphRequest::descriptor(), "step_id") == 1);
  CHECK(number(tf::GraphOptions::descriptor(), "enable_recv_scheduling") == 2);
  CHECK(number(tf::GraphOptions::descriptor(), "enable_bfloat16_sendrecv") == 7);
  CHECK(number(tf::ConfigProto::descriptor(), "inter_op_parallelism_threads") == 5);
  CHECK(number(tf::ConfigProto::descriptor(), "cluster_def") == 14);
  CHECK(tf::OptimizerOptions::L0 == -1);
  CHECK(tf::OptimizerOptions::OFF == -1);
  CHECK(tf::RunOptions::FULL_TRACE == 3);
}

TEST_CASE("a ConfigProto field tensoract leaves out passes through as an unknown field") {
  // gpu_options (6) { allow_growth (4): true }, as a TensorFlow client writes it.
  const std::string gpu_options("\x32\x02\x20\x01", 4);
  tf::ConfigProto c;
  c.set_intra_op_parallelism_threads(2);
  std::string bytes = c.SerializeAsString() + gpu_options;
  tf::ConfigProto parsed;
  REQUIRE(ParseBinaryProto(bytes, &parsed).ok());
  CHECK(parsed.intra_op_parallelism_threads() == 2);
  CHECK_FALSE(parsed.GetReflection()->GetUnknownFields(parsed).empty());
  CHECK(parsed.SerializeAsString() == bytes);  // forwarded to a worker unchanged
}

}  // namespace
}  // namespace tensoract
