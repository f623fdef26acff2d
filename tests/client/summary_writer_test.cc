// TensorFlow 2's summary writer ops (graph/builder/summary_ops.h) run eagerly, op by op, as
// tf.summary does in TensorFlow 2: the event file they leave, read back.
#include <catch2/catch.hpp>

#include <filesystem>

#include <unistd.h>

#include "client/eager_context.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/ops.h"
#include "graph/builder/summary_ops.h"
#include "kernels/io/event_file.h"
#include "tests/client/eager_test_util.h"

namespace tensoract {
namespace {

namespace fs = std::filesystem;

TEST_CASE("eager summary writer ops write scalars, histograms, images and tensors by step", "[eager][summary]") {
  const fs::path dir = fs::temp_directory_path() / ("tensoract_eager_summary_" + std::to_string(getpid()));
  fs::remove_all(dir);
  auto ctx = testing::NewContext();
  Scope s = ctx->scope();
  Output writer = ops::SummaryWriter(s, "train_writer");
  ops::CreateSummaryFileWriter(s, writer, dir.string());
  REQUIRE(s.status().ok());
  for (int64_t step = 0; step < 3; ++step) {
    ops::WriteScalarSummary(s, writer, step, std::string("loss"), ops::Const(s, 1.f / (step + 1)));
  }
  ops::WriteHistogramSummary(s, writer, int64_t{3}, std::string("weights"), ops::Const(s, {0.5f, -1.f, 2.f}));
  ops::WriteImageSummary(s, writer, int64_t{3}, std::string("images"), ops::Fill(s, ops::Const(s, {2, 4, 4, 1}), 0.5f), 1);
  tensorflow::SummaryMetadata metadata;
  metadata.mutable_plugin_data()->set_plugin_name("scalars");
  ops::WriteSummary(s, writer, int64_t{4}, ops::Const(s, 0.125f), std::string("lr"), metadata);
  ops::FlushSummaryWriter(s, writer);
  INFO(s.status().ToString());
  REQUIRE(s.status().ok());

  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path().string());
  REQUIRE(files.size() == 1);
  std::vector<tensorflow::Event> events;
  REQUIRE(ReadEventFile(files[0], &events).ok());
  REQUIRE(events.size() == 7);  // the format, 3 scalars, a histogram, an image, a tensor
  for (int64_t step = 0; step < 3; ++step) {
    const tensorflow::Event& e = events[static_cast<size_t>(step) + 1];
    CHECK((e.step() == step && e.summary().value(0).tag() == "loss"));
    CHECK(e.summary().value(0).simple_value() == Approx(1.f / (step + 1)));
  }
  CHECK(events[4].summary().value(0).histo().num() == 3);
  CHECK(events[5].summary().value(0).tag() == "images/image");  // max_images 1
  CHECK(events[5].summary().value_size() == 1);
  CHECK(events[6].summary().value(0).metadata().plugin_data().plugin_name() == "scalars");
  CHECK(events[6].summary().value(0).tensor().dtype() == tensorflow::DT_FLOAT);

  // Closed, the writer is gone: a later write names the missing resource.
  ops::CloseSummaryWriter(s, writer);
  REQUIRE(s.status().ok());
  Scope after = ctx->scope();
  ops::WriteScalarSummary(after, writer, int64_t{5}, std::string("loss"), ops::Const(after, 0.f));
  CHECK(after.status().code() == error::NOT_FOUND);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tensoract
