// GraphDefs in the exact text format TensorFlow 1.x writes (tests/data/tf1_*.pbtxt: ref
// and resource variables with `_class` and `_output_shapes`, initialisers, placeholders,
// MatMul, Add, Mul, updates, unused branches) run through the C++ Session with the values
// TensorFlow gives for the same steps (checked with TF 2.21's tf.compat.v1 Session).
#include <cctype>

#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using testing::Load;
using testing::MustRun;

using testing::DataPath;
using testing::NewSessionWith;
using testing::Values;


template <class T>
std::vector<T> ValuesOf(const Tensor& t) {
  REQUIRE(t.dtype() == DataTypeToEnum<T>::value);
  const T* p = t.base<T>();
  return std::vector<T>(p, p + t.NumElements());
}

// True when `name` occurs in `message` as a whole name (not inside "w_2" or "new/w").
bool Names(const std::string& message, const std::string& name) {
  auto part_of_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/'; };
  for (size_t at = message.find(name); at != std::string::npos; at = message.find(name, at + 1)) {
    size_t end = at + name.size();
    if ((at == 0 || !part_of_name(message[at - 1])) && (end == message.size() || !part_of_name(message[end]))) {
      return true;
    }
  }
  return false;
}

Tensor X22() { return Tensor::FromVector<float>({1, 1, 2, 0}, TensorShape({2, 2})); }


TEST_CASE("TF 1.x ref variables: a step before the initialiser fails, naming the variable") {
  auto session = NewSessionWith(Load("tf1_variables.pbtxt"));
  std::vector<Tensor> out;
  Status s = session->Run({}, {"w/read:0"}, {}, &out);
  CHECK(s.code() == error::FAILED_PRECONDITION);
  CHECK(Names(s.message(), "w"));
  INFO(s.message());
  s = session->Run({{"x", X22()}}, {"y"}, {}, &out);
  CHECK(s.code() == error::FAILED_PRECONDITION);
  CHECK((Names(s.message(), "w") || Names(s.message(), "b")));
  CHECK(ValuesOf<bool>(MustRun(session.get(), {}, {"IsVariableInitialized"})[0]) == std::vector<bool>{false});
  // The failed steps changed nothing: the initialiser and a read work afterwards.
  MustRun(session.get(), {}, {}, {"init"});
  CHECK(Values(MustRun(session.get(), {}, {"w/read:0"})[0]) == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("TF 1.x ref variables: after init, reads and y = x·w + b give TensorFlow's values") {
  auto session = NewSessionWith(Load("tf1_variables.pbtxt"));
  CHECK(MustRun(session.get(), {}, {}, {"init"}).empty());
  auto out = MustRun(session.get(), {{"x", X22()}},
                     {"IsVariableInitialized:0", "w/read:0", "b/read", "w", "y", "z:0", "MatMul"});
  CHECK(ValuesOf<bool>(out[0]) == std::vector<bool>{true});
  CHECK(out[1].shape() == TensorShape({2, 2}));
  CHECK(Values(out[1]) == std::vector<float>{1, 2, 3, 4});
  CHECK(Values(out[2]) == std::vector<float>{0.5f, -0.5f});
  CHECK(out[3].dtype() == tensorflow::DT_FLOAT);  // a ref output is fetched as its value
  CHECK(Values(out[3]) == std::vector<float>{1, 2, 3, 4});
  CHECK(out[4].shape() == TensorShape({2, 2}));
  CHECK(Values(out[4]) == std::vector<float>{4.5f, 5.5f, 2.5f, 3.5f});
  CHECK(Values(out[5]) == std::vector<float>{9, 11, 5, 7});
  CHECK(Values(out[6]) == std::vector<float>{4, 6, 2, 4});
}

TEST_CASE("TF 1.x ref variables: AssignAdd twice, each step sees the last one's update") {
  auto session = NewSessionWith(Load("tf1_variables.pbtxt"));
  MustRun(session.get(), {}, {}, {"init"});
  CHECK(Values(MustRun(session.get(), {}, {"inc:0"})[0]) == std::vector<float>{2, 3, 4, 5});
  CHECK(Values(MustRun(session.get(), {}, {"inc"})[0]) == std::vector<float>{3, 4, 5, 6});
  auto out = MustRun(session.get(), {{"x", X22()}}, {"w:0", "y"});
  CHECK(Values(out[0]) == std::vector<float>{3, 4, 5, 6});
  CHECK(Values(out[1]) == std::vector<float>{8.5f, 9.5f, 6.5f, 7.5f});
  CHECK(Values(MustRun(session.get(), {}, {"dec:0"})[0]) == std::vector<float>{0.25f, -0.75f});
  // A target runs for its effect only.
  CHECK(MustRun(session.get(), {}, {}, {"inc", "dec"}).empty());
  out = MustRun(session.get(), {}, {"w/read", "b/read"});
  CHECK(Values(out[0]) == std::vector<float>{4, 5, 6, 7});
  CHECK(Values(out[1]) == std::vector<float>{0, -1});
  // Running the initialiser again assigns the initial values again, as in TensorFlow.
  MustRun(session.get(), {}, {}, {"init"});
  CHECK(Values(MustRun(session.get(), {}, {"w/read:0"})[0]) == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("TF 1.x ref variables: any tensor can be fed, and a fed tensor's producers do not run") {
  auto session = NewSessionWith(Load("tf1_variables.pbtxt"));
  Tensor product = Tensor::FromVector<float>({1, 2}, TensorShape({1, 2}));
  // Before init: with MatMul:0 and b/read:0 fed, y needs neither variable.
  auto out = MustRun(session.get(), {{"MatMul:0", product}, {"b/read:0", Tensor::FromVector<float>({10, 20})}},
                     {"y", "z"});
  CHECK(Values(out[0]) == std::vector<float>{11, 22});
  CHECK(Values(out[1]) == std::vector<float>{22, 44});
  MustRun(session.get(), {}, {}, {"init"});
  out = MustRun(session.get(), {{"MatMul", product}}, {"y:0", "z:0", "w/read:0"});
  CHECK(Values(out[0]) == std::vector<float>{1.5f, 1.5f});
  CHECK(Values(out[1]) == std::vector<float>{3, 3});
  CHECK(Values(out[2]) == std::vector<float>{1, 2, 3, 4});
  // Feeds the fetches do not need are allowed and ignored, as in TensorFlow: x (MatMul is
  // fed) and the unused placeholder `unfed`.
  out = MustRun(session.get(), {{"x", X22()}, {"MatMul:0", product}, {"unfed", Tensor::Scalar<float>(3)}}, {"y"});
  CHECK(Values(out[0]) == std::vector<float>{1.5f, 1.5f});
  // Feeding and fetching the same tensor returns the fed value.
  Tensor nines = Tensor::FromVector<float>({9, 9}, TensorShape({1, 2}));
  out = MustRun(session.get(), {{"y:0", nines}}, {"y:0", "z"});
  CHECK(Values(out[0]) == std::vector<float>{9, 9});
  CHECK(Values(out[1]) == std::vector<float>{18, 18});
}

TEST_CASE("TF 1.x ref variables: pruning drops unused branches that would fail if they ran") {
  auto session = NewSessionWith(Load("tf1_variables.pbtxt"));
  MustRun(session.get(), {}, {}, {"init"});
  // ghost is never initialised and unfed is never fed: neither is needed for z.
  CHECK(Values(MustRun(session.get(), {{"x", X22()}}, {"z"})[0]) == std::vector<float>{9, 11, 5, 7});
  std::vector<Tensor> out;
  Status s = session->Run({}, {"unused_ghost"}, {}, &out);
  CHECK(s.code() == error::FAILED_PRECONDITION);
  CHECK(Names(s.message(), "ghost"));
  s = session->Run({}, {}, {"unused_unfed"}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK(Names(s.message(), "unfed"));
  CHECK(Values(MustRun(session.get(), {{"x", X22()}}, {"y"})[0]) == std::vector<float>{4.5f, 5.5f, 2.5f, 3.5f});
}

TEST_CASE("variables belong to their session: a second session over the same graph starts uninitialised") {
  tensorflow::GraphDef graph = Load("tf1_variables.pbtxt");
  auto first = NewSessionWith(graph);
  auto second = NewSessionWith(graph);
  MustRun(first.get(), {}, {}, {"init"});
  MustRun(first.get(), {}, {}, {"inc"});
  std::vector<Tensor> out;
  CHECK(second->Run({}, {"w/read"}, {}, &out).code() == error::FAILED_PRECONDITION);
  MustRun(second.get(), {}, {}, {"init"});
  CHECK(Values(MustRun(second.get(), {}, {"w/read"})[0]) == std::vector<float>{1, 2, 3, 4});
  CHECK(Values(MustRun(first.get(), {}, {"w/read"})[0]) == std::vector<float>{2, 3, 4, 5});
}

TEST_CASE("TF 1.x resource variables: uninitialised reads fail naming the variable; updates accumulate") {
  auto session = NewSessionWith(Load("tf1_resource_variables.pbtxt"));
  std::vector<Tensor> out;
  Status s = session->Run({{"x", X22()}}, {"y"}, {}, &out);
  CHECK(s.code() == error::FAILED_PRECONDITION);
  CHECK(Names(s.message(), "v"));
  INFO(s.message());
  CHECK(ValuesOf<bool>(MustRun(session.get(), {}, {"v/IsInitialized/VarIsInitializedOp"})[0]) ==
        std::vector<bool>{false});

  MustRun(session.get(), {}, {}, {"init"});
  out = MustRun(session.get(), {{"x", X22()}},
                {"v/IsInitialized/VarIsInitializedOp:0", "v/Read/ReadVariableOp:0", "y", "count/Read/ReadVariableOp"});
  CHECK(ValuesOf<bool>(out[0]) == std::vector<bool>{true});
  CHECK(Values(out[1]) == std::vector<float>{1, 2, -3, 0.5f});
  CHECK(Values(out[2]) == std::vector<float>{-2, 2.5f, 2, 4});
  CHECK(out[3].shape() == TensorShape({}));
  CHECK(ValuesOf<int64_t>(out[3]) == std::vector<int64_t>{0});

  MustRun(session.get(), {}, {}, {"inc"});
  MustRun(session.get(), {}, {}, {"inc", "tick"});
  MustRun(session.get(), {}, {}, {"tick"});
  MustRun(session.get(), {}, {}, {"tick"});
  out = MustRun(session.get(), {{"x", X22()}}, {"v/Read/ReadVariableOp", "y:0", "count/Read/ReadVariableOp:0"});
  CHECK(Values(out[0]) == std::vector<float>{3, 4, -1, 2.5f});
  CHECK(Values(out[1]) == std::vector<float>{2, 6.5f, 6, 8});
  CHECK(ValuesOf<int64_t>(out[2]) == std::vector<int64_t>{3});
  // ReadVariableOp has a control input on AssignSubVariableOp: it reads after the update.
  CHECK(Values(MustRun(session.get(), {}, {"ReadVariableOp:0"})[0]) == std::vector<float>{2.5f, 3.5f, -1.5f, 2});
  CHECK(Values(MustRun(session.get(), {}, {"v/Read/ReadVariableOp"})[0]) ==
        std::vector<float>{2.5f, 3.5f, -1.5f, 2});
}

TEST_CASE("TF 1.x resource variables: feeds replace reads, and the unread ghost is pruned") {
  auto session = NewSessionWith(Load("tf1_resource_variables.pbtxt"));
  // y's read of v is fed, so v need not be initialised.
  Tensor identity = Tensor::FromVector<float>({1, 0, 0, 1}, TensorShape({2, 2}));
  auto out = MustRun(session.get(), {{"y/ReadVariableOp:0", identity}, {"x", X22()}}, {"y"});
  CHECK(Values(out[0]) == std::vector<float>{1, 1, 2, 0});
  MustRun(session.get(), {}, {}, {"init"});
  std::vector<Tensor> none;
  Status s = session->Run({}, {"unused_ghost"}, {}, &none);
  CHECK(s.code() == error::FAILED_PRECONDITION);
  CHECK(Names(s.message(), "ghost"));
  CHECK(Values(MustRun(session.get(), {{"x", X22()}}, {"y"})[0]) == std::vector<float>{-2, 2.5f, 2, 4});
}

TEST_CASE("the pre-V2 Variable op of old TF 1.x graphs holds state like VariableV2") {
  tensorflow::GraphDef graph;
  REQUIRE(ParseTextProto(R"pb(
    node { name: "v" op: "Variable"
           attr { key: "dtype" value { type: DT_DOUBLE } }
           attr { key: "shape" value { shape { dim { size: 2 } } } }
           attr { key: "container" value { s: "" } }
           attr { key: "shared_name" value { s: "" } } }
    node { name: "v/initial_value" op: "Const"
           attr { key: "dtype" value { type: DT_DOUBLE } }
           attr { key: "value" value { tensor { dtype: DT_DOUBLE tensor_shape { dim { size: 2 } }
                                                double_val: 0.1 double_val: 0.2 } } } }
    node { name: "v/Assign" op: "Assign" input: "v" input: "v/initial_value"
           attr { key: "T" value { type: DT_DOUBLE } }
           attr { key: "_class" value { list { s: "loc:@v" } } } }
    node { name: "v/read" op: "Identity" input: "v"
           attr { key: "T" value { type: DT_DOUBLE } }
           attr { key: "_class" value { list { s: "loc:@v" } } } }
    node { name: "sub" op: "AssignSub" input: "v" input: "v/read"
           attr { key: "T" value { type: DT_DOUBLE } } }
    versions { producer: 8 }
  )pb", &graph).ok());
  auto session = NewSessionWith(graph);
  std::vector<Tensor> out;
  CHECK(session->Run({}, {"v/read"}, {}, &out).code() == error::FAILED_PRECONDITION);
  out = MustRun(session.get(), {}, {"v/Assign:0"});
  CHECK(ValuesOf<double>(out[0]) == std::vector<double>{0.1, 0.2});
  CHECK(ValuesOf<double>(MustRun(session.get(), {}, {"sub"})[0]) == std::vector<double>{0, 0});
}

}  // namespace
}  // namespace tensoract
