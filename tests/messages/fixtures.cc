#include "tests/messages/fixtures.h"

namespace tensoract {
namespace testing {

const std::string kAwkwardBytes("\0\x01\xff\x80\n\"\\\x7f'tail", 13);


tf::TensorShapeProto Shape(std::vector<int64_t> dims) {
  tf::TensorShapeProto shape;
  for (int64_t d : dims) shape.add_dim()->set_size(d);
  return shape;
}

tf::TensorShapeProto NamedPartialShape() {
  tf::TensorShapeProto shape = Shape({-1, 784, 0});
  shape.mutable_dim(0)->set_name("batch");
  return shape;
}

tf::TensorShapeProto UnknownRankShape() {
  tf::TensorShapeProto shape;
  shape.set_unknown_rank(true);
  return shape;
}

tf::FullTypeDef FullType() {
  // TensorFlow's type of a list of float tensors whose length is the literal 3 and whose
  // element type is the variable T.
  tf::FullTypeDef t;
  t.set_type_id(tf::TFT_PRODUCT);
  tf::FullTypeDef* tensor = t.add_args();
  tensor->set_type_id(tf::TFT_TENSOR);
  tensor->add_args()->set_type_id(tf::TFT_FLOAT);
  tf::FullTypeDef* var = t.add_args();
  var->set_type_id(tf::TFT_VAR);
  var->set_s("T");
  tf::FullTypeDef* literal = t.add_args();
  literal->set_type_id(tf::TFT_LITERAL);
  literal->set_i(3);
  return t;
}

tf::ResourceHandleProto Handle() {
  tf::ResourceHandleProto h;
  h.set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  h.set_container("training");
  h.set_name("dense/kernel");
  h.set_hash_code(0xdeadbeefcafef00dULL);
  h.set_maybe_type_name("tensorflow::Var");
  auto* a = h.add_dtypes_and_shapes();
  a->set_dtype(tf::DT_FLOAT);
  *a->mutable_shape() = Shape({784, -1});
  auto* b = h.add_dtypes_and_shapes();
  b->set_dtype(tf::DT_INT64_REF);
  *b->mutable_shape() = UnknownRankShape();
  return h;
}

tf::TensorProto FloatTensor() {
  tf::TensorProto t;
  t.set_dtype(tf::DT_FLOAT);
  *t.mutable_tensor_shape() = Shape({3});
  t.set_version_number(1);
  t.add_float_val(1.5f);
  t.add_float_val(-0.1f);
  t.add_float_val(std::numeric_limits<float>::infinity());
  return t;
}

// One tensor per typed value field, each the way TensorFlow fills it for that dtype.
std::vector<std::pair<std::string, tf::TensorProto>> TypedTensors() {
  std::vector<std::pair<std::string, tf::TensorProto>> out;
  auto add = [&](const std::string& what, tf::DataType dt, std::vector<int64_t> dims) {
    out.emplace_back(what, tf::TensorProto());
    tf::TensorProto& t = out.back().second;
    t.set_dtype(dt);
    *t.mutable_tensor_shape() = Shape(std::move(dims));
    return &t;
  };
  out.emplace_back("float_val", FloatTensor());
  auto* d = add("double_val", tf::DT_DOUBLE, {2});
  d->add_double_val(1e300);
  d->add_double_val(-0.1);
  auto* i = add("int_val", tf::DT_INT32, {2});
  i->add_int_val(-7);
  i->add_int_val(std::numeric_limits<int32_t>::max());
  auto* i8 = add("int_val for int8", tf::DT_INT8, {2});
  i8->add_int_val(-128);
  i8->add_int_val(127);
  auto* s = add("string_val", tf::DT_STRING, {2});
  s->add_string_val("hello");
  s->add_string_val(kAwkwardBytes);
  auto* c64 = add("scomplex_val", tf::DT_COMPLEX64, {2});
  for (float v : {1.f, -2.f, 0.5f, 0.25f}) c64->add_scomplex_val(v);
  auto* i64 = add("int64_val", tf::DT_INT64, {2});
  i64->add_int64_val(std::numeric_limits<int64_t>::min());
  i64->add_int64_val(int64_t{1} << 40);
  auto* b = add("bool_val", tf::DT_BOOL, {3});
  b->add_bool_val(true);
  b->add_bool_val(false);
  b->add_bool_val(true);
  auto* c128 = add("dcomplex_val", tf::DT_COMPLEX128, {1});
  c128->add_dcomplex_val(1e-300);
  c128->add_dcomplex_val(-3.0);
  auto* h = add("half_val", tf::DT_HALF, {2});
  h->add_half_val(0x3c00);  // 1.0
  h->add_half_val(0xbc00);  // -1.0
  auto* bf = add("half_val for bfloat16", tf::DT_BFLOAT16, {1});
  bf->add_half_val(0x3f80);  // 1.0
  auto* r = add("resource_handle_val", tf::DT_RESOURCE, {});
  *r->add_resource_handle_val() = Handle();
  auto* v = add("variant_val", tf::DT_VARIANT, {});
  tf::VariantTensorDataProto* variant = v->add_variant_val();
  variant->set_type_name("tensorflow::TensorList");
  variant->set_metadata(kAwkwardBytes);
  *variant->add_tensors() = FloatTensor();
  auto* u32 = add("uint32_val", tf::DT_UINT32, {1});
  u32->add_uint32_val(std::numeric_limits<uint32_t>::max());
  auto* u64 = add("uint64_val", tf::DT_UINT64, {1});
  u64->add_uint64_val(std::numeric_limits<uint64_t>::max());
  auto* f8 = add("float8_val", tf::DT_FLOAT8_E5M2, {3});
  f8->set_float8_val(std::string("\x3c\x00\xff", 3));
  // tensor_content: the packed little-endian buffer, bytes of every kind.
  auto* content = add("tensor_content", tf::DT_FLOAT, {2, 2});
  content->set_tensor_content(kAwkwardBytes.substr(0, 12) + std::string("\x00\x00\x80\x3f", 4));
  return out;
}

tf::NameAttrList Func() {
  tf::NameAttrList f;
  f.set_name("Inner");
  (*f.mutable_attr())["T"].set_type(tf::DT_FLOAT);
  tf::NameAttrList* nested = (*f.mutable_attr())["body"].mutable_func();
  nested->set_name("Body");
  (*nested->mutable_attr())["N"].set_i(3);
  return f;
}

// One AttrValue per oneof case; false and 0 too, whose presence is all they carry.
std::vector<std::pair<std::string, tf::AttrValue>> Attrs() {
  std::vector<std::pair<std::string, tf::AttrValue>> out;
  auto add = [&](const std::string& what) {
    out.emplace_back(what, tf::AttrValue());
    return &out.back().second;
  };
  add("s")->set_s(kAwkwardBytes);
  add("i")->set_i(-42);
  add("i = 0")->set_i(0);
  add("f")->set_f(0.1f);
  add("b")->set_b(true);
  add("b = false")->set_b(false);
  add("type")->set_type(tf::DT_BFLOAT16_REF);
  *add("shape")->mutable_shape() = NamedPartialShape();
  *add("unknown rank shape")->mutable_shape() = UnknownRankShape();
  *add("tensor")->mutable_tensor() = FloatTensor();
  *add("func")->mutable_func() = Func();
  add("placeholder")->set_placeholder("T");
  add("empty list")->mutable_list();
  tf::AttrValue::ListValue* list = add("list with every field")->mutable_list();
  list->add_s("SAME");
  list->add_s(kAwkwardBytes);
  list->add_i(1);
  list->add_i(-1);
  list->add_f(0.5f);
  list->add_f(-2.25f);
  list->add_b(true);
  list->add_b(false);
  list->add_type(tf::DT_FLOAT);
  list->add_type(tf::DT_STRING_REF);
  *list->add_shape() = NamedPartialShape();
  *list->add_shape() = UnknownRankShape();
  *list->add_tensor() = FloatTensor();
  *list->add_func() = Func();
  return out;
}

tf::NodeDef Node() {
  tf::NodeDef n;
  n.set_name("dense/MatMul");
  n.set_op("MatMul");
  n.add_input("x");
  n.add_input("dense/kernel/read:1");
  n.add_input("^init");
  n.set_device("/job:worker/replica:0/task:1/device:GPU:0");
  (*n.mutable_attr())["T"].set_type(tf::DT_FLOAT);
  (*n.mutable_attr())["transpose_a"].set_b(true);
  (*n.mutable_attr())["transpose_b"].set_b(false);
  auto* debug = n.mutable_experimental_debug_info();
  debug->add_original_node_names("model/dense/MatMul");
  debug->add_original_node_names("fused");
  debug->add_original_func_names("__inference_call_42");
  *n.mutable_experimental_type() = FullType();
  return n;
}

tf::VersionDef Versions() {
  tf::VersionDef v;
  v.set_producer(27);
  v.set_min_consumer(12);
  v.add_bad_consumers(13);
  v.add_bad_consumers(19);
  return v;
}

tf::OpDef FancyOp() {
  tf::OpDef op;
  op.set_name("Fancy");
  auto* a = op.add_input_arg();
  a->set_name("a");
  a->set_description("updated in place");
  a->set_type_attr("T");
  a->set_is_ref(true);
  auto* bs = op.add_input_arg();
  bs->set_name("bs");
  bs->set_number_attr("N");
  bs->set_type_attr("T");
  auto* cs = op.add_input_arg();
  cs->set_name("cs");
  cs->set_type_list_attr("Tin");
  auto* h = op.add_input_arg();
  h->set_name("handle");
  h->set_type(tf::DT_RESOURCE);
  auto* hd = h->add_handle_data();
  hd->set_dtype(tf::DT_FLOAT);
  *hd->mutable_shape() = Shape({2, -1});
  *h->mutable_experimental_full_type() = FullType();
  auto* out = op.add_output_arg();
  out->set_name("out");
  out->set_type(tf::DT_FLOAT);
  op.add_control_output("done");

  auto* t = op.add_attr();
  t->set_name("T");
  t->set_type("type");
  t->mutable_default_value()->set_type(tf::DT_FLOAT);
  t->set_description("element type");
  t->mutable_allowed_values()->mutable_list()->add_type(tf::DT_FLOAT);
  t->mutable_allowed_values()->mutable_list()->add_type(tf::DT_DOUBLE);
  auto* n = op.add_attr();
  n->set_name("N");
  n->set_type("int");
  n->set_has_minimum(true);
  n->set_minimum(1);
  n->mutable_default_value()->set_i(2);
  auto* padding = op.add_attr();
  padding->set_name("padding");
  padding->set_type("string");
  padding->mutable_default_value()->set_s("SAME");
  padding->mutable_allowed_values()->mutable_list()->add_s("SAME");
  padding->mutable_allowed_values()->mutable_list()->add_s("VALID");
  auto* tin = op.add_attr();
  tin->set_name("Tin");
  tin->set_type("list(type)");
  tin->set_has_minimum(true);  // minimum 0, which only has_minimum tells apart from none
  tin->mutable_default_value()->mutable_list();

  op.mutable_deprecation()->set_version(26);
  op.mutable_deprecation()->set_explanation("use Fancier");
  op.set_summary("Does fancy things.");
  op.set_description("At length.\nOn two lines.");
  op.set_is_commutative(true);
  op.set_is_aggregate(true);
  op.set_is_stateful(true);
  op.set_allows_uninitialized_input(true);
  op.set_is_distributed_communication(true);
  return op;
}

tf::FunctionDef Function() {
  tf::FunctionDef f;
  tf::OpDef* sig = f.mutable_signature();
  sig->set_name("AddOne");
  auto* x = sig->add_input_arg();
  x->set_name("x");
  x->set_type_attr("T");
  auto* y = sig->add_output_arg();
  y->set_name("y");
  y->set_type_attr("T");
  auto* t = sig->add_attr();
  t->set_name("T");
  t->set_type("type");
  sig->add_control_output("side_effect");
  (*f.mutable_attr())["_noinline"].set_b(true);
  tf::FunctionDef::ArgAttrs arg_attrs;
  (*arg_attrs.mutable_attr())["_output_shapes"].mutable_list()->add_shape()->set_unknown_rank(true);
  (*f.mutable_arg_attr())[0] = arg_attrs;
  (*f.mutable_arg_attr())[3] = arg_attrs;
  (*f.mutable_resource_arg_unique_id())[1] = 7;
  tf::NodeDef* add = f.add_node_def();
  add->set_name("add");
  add->set_op("AddV2");
  add->add_input("x");
  add->add_input("one:output:0");
  (*add->mutable_attr())["T"].set_placeholder("T");
  (*f.mutable_ret())["y"] = "add:z:0";
  (*f.mutable_control_ret())["side_effect"] = "print";
  return f;
}

tf::FunctionDefLibrary Library() {
  tf::FunctionDefLibrary lib;
  *lib.add_function() = Function();
  auto* grad = lib.add_gradient();
  grad->set_function_name("AddOne");
  grad->set_gradient_func("AddOneGrad");
  auto* registered = lib.add_registered_gradients();
  registered->set_gradient_func("FancyGrad");
  registered->set_registered_op_type("Fancy");
  return lib;
}

tf::GraphDebugInfo DebugInfo() {
  tf::GraphDebugInfo info;
  info.add_files("model.py");
  info.add_files("layers/dense.py");
  tf::GraphDebugInfo::FileLineCol frame;
  frame.set_file_index(0);  // explicit presence: 0 is set, not absent
  frame.set_line(10);
  frame.set_col(4);
  frame.set_func("call");
  frame.set_code("y = tf.matmul(x, w)");
  (*info.mutable_frames_by_id())[0x1234abcd5678ef00ULL] = frame;
  tf::GraphDebugInfo::StackTrace trace;
  *trace.add_file_line_cols() = frame;
  trace.add_frame_id(0x1234abcd5678ef00ULL);
  trace.add_frame_id(42);
  (*info.mutable_traces_by_id())[7] = trace;
  (*info.mutable_traces())["dense/MatMul@__inference_call_42"] = trace;
  (*info.mutable_name_to_trace_id())["dense/MatMul"] = 7;
  return info;
}

tf::GraphDef Graph() {
  tf::GraphDef g;
  tf::NodeDef* x = g.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(tf::DT_FLOAT);
  *(*x->mutable_attr())["shape"].mutable_shape() = NamedPartialShape();
  *g.add_node() = Node();
  *g.mutable_versions() = Versions();
  // `version` is deprecated (the generated setter warns), but old GraphDefs still carry it.
  g.GetReflection()->SetInt32(&g, g.GetDescriptor()->FindFieldByName("version"), 17);
  *g.mutable_library() = Library();
  *g.mutable_debug_info() = DebugInfo();
  return g;
}

tf::DeviceAttributes Device() {
  tf::DeviceAttributes d;
  d.set_name("/job:localhost/replica:0/task:0/device:GPU:0");
  d.set_device_type("GPU");
  d.set_memory_limit(int64_t{80} << 30);
  tf::DeviceLocality* locality = d.mutable_locality();
  locality->set_bus_id(1);
  locality->set_numa_node(2);
  auto* nvlink = locality->mutable_links()->add_link();
  nvlink->set_device_id(1);
  nvlink->set_type("NVLink");
  nvlink->set_strength(4);
  auto* pcie = locality->mutable_links()->add_link();
  pcie->set_device_id(2);
  pcie->set_type("StreamExecutor");
  pcie->set_strength(1);
  d.set_incarnation(0xfedcba9876543210ULL);
  d.set_physical_device_desc("device: 0, name: NVIDIA H100 80GB HBM3, pci bus id: 0000:1b:00.0");
  d.set_xla_global_id(5);
  return d;
}

// Every fixture above that is a whole message, for the tests that treat them alike.
std::vector<std::pair<std::string, std::shared_ptr<Message>>> AllFixtures() {
  std::vector<std::pair<std::string, std::shared_ptr<Message>>> out;
  auto add = [&](const std::string& what, const Message& m) {
    out.emplace_back(what, std::shared_ptr<Message>(m.New()));
    out.back().second->CopyFrom(m);
  };
  add("TensorShapeProto with named and -1 dims", NamedPartialShape());
  add("TensorShapeProto of unknown rank", UnknownRankShape());
  for (const auto& [what, t] : TypedTensors()) add("TensorProto with " + what, t);
  add("ResourceHandleProto", Handle());
  for (const auto& [what, a] : Attrs()) add("AttrValue " + what, a);
  add("NameAttrList with nested attrs", Func());
  add("FullTypeDef", FullType());
  add("NodeDef", Node());
  add("VersionDef", Versions());
  add("FunctionDef", Function());
  add("FunctionDefLibrary", Library());
  add("GraphDebugInfo", DebugInfo());
  add("GraphDef", Graph());
  add("OpDef", FancyOp());
  tf::OpList ops;
  *ops.add_op() = FancyOp();
  ops.add_op()->set_name("NoOp");
  add("OpList", ops);
  tf::OpDeprecation deprecation = FancyOp().deprecation();
  add("OpDeprecation", deprecation);
  add("DeviceAttributes", Device());
  tf::SerializedDType dtype;
  dtype.set_datatype(tf::DT_VARIANT_REF);
  add("SerializedDType", dtype);
  return out;
}

}  // namespace testing
}  // namespace tensoract
