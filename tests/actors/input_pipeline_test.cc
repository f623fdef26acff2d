// Readers, DecodeRaw, queue runners and the coordinator (kernels/io/readers.h,
// graph/training/input.h, client/queue_runner.h): real files written by the test, good
// and corrupt, read through sessions as a TensorFlow 1 input pipeline reads them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <unistd.h>

#include "client/coordinator.h"
#include "client/queue_runner.h"
#include "data/fashion_mnist.h"
#include "graph/builder/data_flow_ops.h"
#include "graph/builder/io_ops.h"
#include "graph/training/input.h"
#include "kernels/checkpoint/crc32c.h"
#include "kernels/io/record_io.h"
#include "graph/builder/array_ops.h"
#include "tests/actors/test_util.h"
#include "tests/temp_dir.h"

namespace tensoract {
namespace {

namespace fs = std::filesystem;
using tensorflow::DT_FLOAT;
using tensorflow::DT_INT16;
using tensorflow::DT_INT32;
using tensorflow::DT_STRING;
using tensorflow::DT_UINT8;

using testing::TempDir;

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A session whose graph reads `files` with the reader `make_reader` makes: "read" gives
// one (key, value); "read_up_to" up to "n" (fed); the file queue is closed after its files.
std::unique_ptr<Session> ReaderSession(const std::vector<std::string>& files,
                                       const std::function<Output(const Scope&)>& make_reader) {
  Scope root = Scope::NewRootScope();
  ops::QueueAttrs attrs;
  attrs.shapes = {PartialTensorShape(std::vector<int64_t>{})};
  Output q = ops::FIFOQueue(root.WithOpName("files"), {DT_STRING}, attrs);
  Node* fill = ops::QueueEnqueueMany(root.WithOpName("fill"), q, {ops::Const(root, ops::StringVector(files))});
  ops::QueueClose(root.WithOpName("close").WithControlDependencies({Output(fill, 0)}), q);
  Output reader = make_reader(root.WithOpName("reader"));
  ops::ReaderRead(root.WithOpName("read"), reader, q);
  auto n = ops::Placeholder(root.WithOpName("n"), tensorflow::DT_INT64);
  ops::ReaderReadUpTo(root.WithOpName("read_up_to"), reader, q, n);
  tensorflow::GraphDef def;
  Status s = root.ToGraphDef(&def);
  INFO(s.ToString());
  REQUIRE(s.ok());
  auto session = testing::NewSessionWith(def);
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {}, {"close"}, &out).ok());
  return session;
}

// Reads records one by one until the input ends; the status that ended it.
Status ReadAll(Session& session, std::vector<std::string>* keys, std::vector<std::string>* values) {
  for (;;) {
    std::vector<Tensor> out;
    Status s = session.Run({}, {"read:0", "read:1"}, {}, &out);
    if (!s.ok()) return s;
    keys->push_back(out[0].base<std::string>()[0]);
    values->push_back(out[1].base<std::string>()[0]);
  }
}

TEST_CASE("a FixedLengthRecordReader reads records after the header, file after file, then OutOfRange", "[input]") {
  TempDir dir;
  WriteBytes(dir.File("a.bin"), "HEADabcdefghiFT");  // header 4, records of 3, footer 2
  WriteBytes(dir.File("b.bin"), "HEADxyzFT");
  auto session = ReaderSession({dir.File("a.bin"), dir.File("b.bin")}, [](const Scope& s) {
    ops::FixedLengthRecordReaderAttrs attrs;
    attrs.header_bytes = 4;
    attrs.record_bytes = 3;
    attrs.footer_bytes = 2;
    return ops::FixedLengthRecordReader(s, attrs);
  });
  std::vector<std::string> keys, values;
  Status end = ReadAll(*session, &keys, &values);
  CHECK(end.code() == error::OUT_OF_RANGE);
  CHECK(values == std::vector<std::string>{"abc", "def", "ghi", "xyz"});
  CHECK(keys[0] == dir.File("a.bin") + ":0");
  CHECK(keys[2] == dir.File("a.bin") + ":2");
  CHECK(keys[3] == dir.File("b.bin") + ":0");
}

TEST_CASE("a truncated fixed-length file is DataLoss naming the file and offset", "[input]") {
  TempDir dir;
  WriteBytes(dir.File("short.bin"), "HEADabcde");  // the second record has 2 of its 3 bytes
  auto session = ReaderSession({dir.File("short.bin")}, [](const Scope& s) {
    ops::FixedLengthRecordReaderAttrs attrs;
    attrs.header_bytes = 4;
    attrs.record_bytes = 3;
    return ops::FixedLengthRecordReader(s, attrs);
  });
  std::vector<std::string> keys, values;
  Status s = ReadAll(*session, &keys, &values);
  CHECK(values == std::vector<std::string>{"abc"});
  CHECK(s.code() == error::DATA_LOSS);
  CHECK_THAT(s.message(), Catch::Contains(dir.File("short.bin")) && Catch::Contains("at offset 7"));
}

void WriteRecords(const std::string& path, const std::vector<std::string>& records, const std::string& compression) {
  auto writer = RecordWriter::Open(path, compression);
  REQUIRE(writer.ok());
  for (const std::string& r : records) REQUIRE((*writer)->Write(r).ok());
  REQUIRE((*writer)->Close().ok());
}

TEST_CASE("a TFRecordReader reads plain and GZIP record files, keyed by offset", "[input]") {
  TempDir dir;
  WriteRecords(dir.File("plain.tfrecord"), {"one", "", "three"}, "");
  WriteRecords(dir.File("zipped.tfrecord.gz"), {"four", "five"}, "GZIP");
  for (const std::string& compression : {std::string(""), std::string("GZIP")}) {
    const std::string file = compression.empty() ? dir.File("plain.tfrecord") : dir.File("zipped.tfrecord.gz");
    auto session = ReaderSession({file}, [&](const Scope& s) { return ops::TFRecordReader(s, compression); });
    std::vector<std::string> keys, values;
    CHECK(ReadAll(*session, &keys, &values).code() == error::OUT_OF_RANGE);
    if (compression.empty()) {
      CHECK(values == std::vector<std::string>{"one", "", "three"});
      CHECK(keys == std::vector<std::string>{file + ":0", file + ":19", file + ":35"});
    } else {
      CHECK(values == std::vector<std::string>{"four", "five"});
    }
  }
}

TEST_CASE("a reader reads GZIP files of other sizes one after another, each in the memory of the one before",
          "[input]") {
  TempDir dir;
  // Large, small, larger: the memory a file leaves is grown, shrunk and grown again.
  std::vector<std::vector<std::string>> files(3);
  for (size_t f = 0; f < files.size(); ++f) {
    const int n = f == 1 ? 2 : 1000 * static_cast<int>(f + 1);
    for (int i = 0; i < n; ++i) files[f].push_back(std::to_string(f) + ":" + std::string(i % 97, 'a' + i % 26));
    WriteRecords(dir.File("f" + std::to_string(f) + ".gz"), files[f], "GZIP");
  }
  auto session = ReaderSession({dir.File("f0.gz"), dir.File("f1.gz"), dir.File("f2.gz"), dir.File("f0.gz")},
                               [](const Scope& s) { return ops::TFRecordReader(s, "GZIP"); });
  std::vector<std::string> keys, values;
  CHECK(ReadAll(*session, &keys, &values).code() == error::OUT_OF_RANGE);
  std::vector<std::string> expected;
  for (size_t f : {0, 1, 2, 0}) expected.insert(expected.end(), files[f].begin(), files[f].end());
  CHECK(values == expected);
}

TEST_CASE("a GZIP file read again keeps its inflated bytes only while it is unchanged", "[input]") {
  TempDir dir;
  const std::string file = dir.File("f.gz");
  WriteRecords(file, {"old-1", "old-2"}, "GZIP");
  // A file changed in the last two seconds is inflated anew every time; this one is older.
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  auto session = ReaderSession({file, file, file}, [](const Scope& s) { return ops::TFRecordReader(s, "GZIP"); });
  auto next = [&] {
    std::vector<Tensor> out;
    Status s = session->Run({}, {"read:1"}, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    return out[0].base<std::string>()[0];
  };
  CHECK(next() == "old-1");
  CHECK(next() == "old-2");
  CHECK(next() == "old-1");  // the second epoch of the unchanged file
  CHECK(next() == "old-2");
  // Rewritten in place, the same size: its ctime moved, so the third epoch inflates it.
  WriteRecords(file, {"new-1", "new-2"}, "GZIP");
  CHECK(next() == "new-1");
  CHECK(next() == "new-2");
  std::vector<Tensor> out;
  CHECK(session->Run({}, {"read:1"}, {}, &out).code() == error::OUT_OF_RANGE);
}

TEST_CASE("a corrupt or truncated TFRecord file is DataLoss naming the file and the record's offset", "[input]") {
  TempDir dir;
  const std::string file = dir.File("bad.tfrecord");
  WriteRecords(file, {"first", "second"}, "");
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string corrupt = bytes;
  corrupt[21 + 12 + 2] ^= 0x40;  // a byte of the second record's data
  WriteBytes(file, corrupt);
  auto session = ReaderSession({file}, [](const Scope& s) { return ops::TFRecordReader(s); });
  std::vector<std::string> keys, values;
  Status s = ReadAll(*session, &keys, &values);
  CHECK(values == std::vector<std::string>{"first"});
  CHECK(s.code() == error::DATA_LOSS);
  CHECK_THAT(s.message(), Catch::Contains(file) && Catch::Contains("corrupted record at offset 33") &&
                                 Catch::Contains("the record starts at 21"));

  WriteBytes(file, bytes.substr(0, bytes.size() - 3));
  auto truncated = ReaderSession({file}, [](const Scope& s) { return ops::TFRecordReader(s); });
  keys.clear();
  values.clear();
  s = ReadAll(*truncated, &keys, &values);
  CHECK(s.code() == error::DATA_LOSS);
  CHECK_THAT(s.message(), Catch::Contains("truncated record at offset 21"));

  // A length with a valid checksum that claims a terabyte: refused before allocating.
  std::string huge(12, '\0');
  const uint64_t length = uint64_t{1} << 40;
  for (int i = 0; i < 8; ++i) huge[i] = static_cast<char>(length >> (8 * i));
  const uint32_t crc = crc32c::Mask(crc32c::Value(huge.data(), 8));
  for (int i = 0; i < 4; ++i) huge[8 + i] = static_cast<char>(crc >> (8 * i));
  WriteBytes(file, huge + "some bytes");
  auto lying = ReaderSession({file}, [](const Scope& s) { return ops::TFRecordReader(s); });
  s = ReadAll(*lying, &keys, &values);
  CHECK(s.code() == error::DATA_LOSS);
  CHECK_THAT(s.message(), Catch::Contains("1099511627776 bytes of data announced, 10 bytes left"));
}

TEST_CASE("WholeFileReader gives each file whole; TextLineReader its lines; ReadUpTo batches of records",
          "[input]") {
  TempDir dir;
  WriteBytes(dir.File("a.txt"), "header\nline one\nline two\n");
  WriteBytes(dir.File("b.txt"), "header\nline three");
  {
    auto session = ReaderSession({dir.File("a.txt"), dir.File("b.txt")}, [](const Scope& s) { return ops::WholeFileReader(s); });
    std::vector<std::string> keys, values;
    CHECK(ReadAll(*session, &keys, &values).code() == error::OUT_OF_RANGE);
    CHECK(keys == std::vector<std::string>{dir.File("a.txt"), dir.File("b.txt")});
    CHECK(values[1] == "header\nline three");
  }
  {
    auto session = ReaderSession({dir.File("a.txt"), dir.File("b.txt")}, [](const Scope& s) { return ops::TextLineReader(s, 1); });
    std::vector<Tensor> out;
    REQUIRE(session->Run({{"n", Tensor::Scalar<int64_t>(2)}}, {"read_up_to:0", "read_up_to:1"}, {}, &out).ok());
    REQUIRE(out[1].NumElements() == 2);
    CHECK(out[1].base<std::string>()[0] == "line one");
    CHECK(out[0].base<std::string>()[1] == dir.File("a.txt") + ":3");
    // Fewer than asked once the file queue is closed and drained.
    REQUIRE(session->Run({{"n", Tensor::Scalar<int64_t>(5)}}, {"read_up_to:0", "read_up_to:1"}, {}, &out).ok());
    REQUIRE(out[1].NumElements() == 1);
    CHECK(out[1].base<std::string>()[0] == "line three");
    CHECK(session->Run({{"n", Tensor::Scalar<int64_t>(5)}}, {"read_up_to:0"}, {}, &out).code() == error::OUT_OF_RANGE);
  }
}

TEST_CASE("DecodeRaw reinterprets bytes in either byte order and refuses ragged input", "[input]") {
  Scope root = Scope::NewRootScope();
  auto bytes = ops::Placeholder(root.WithOpName("bytes"), DT_STRING);
  ops::DecodeRaw(root.WithOpName("u8"), bytes, DT_UINT8);
  ops::DecodeRaw(root.WithOpName("i16_big"), bytes, DT_INT16, /*little_endian=*/false);
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto session = testing::NewSessionWith(def);
  Tensor in(DT_STRING, TensorShape({2}));
  in.base<std::string>()[0] = std::string("\x01\x02", 2);
  in.base<std::string>()[1] = std::string("\xff\x00", 2);
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"bytes", in}}, {"u8", "i16_big"}, {}, &out).ok());
  CHECK(out[0].shape() == TensorShape({2, 2}));
  CHECK(out[0].base<uint8_t>()[2] == 0xff);
  CHECK(out[1].base<int16_t>()[0] == 0x0102);
  CHECK(out[1].base<int16_t>()[1] == static_cast<int16_t>(0xff00));
  in.base<std::string>()[1] = "abc";
  Status ragged = session->Run({{"bytes", in}}, {"u8"}, {}, &out);
  CHECK(ragged.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(ragged.message(), Catch::Contains("same size"));
}

// A pipeline of `files` (fixed-length records of 2 bytes after a 1-byte header): the file
// names through string_input_producer, the records read, decoded and batched.
struct Pipeline {
  tensorflow::GraphDef graph;
  InputPipeline input;
  std::string batch;  // the batch's node
};

Pipeline MakePipeline(const std::vector<std::string>& files, int64_t num_epochs, bool shuffle_batch,
                      int64_t batch_size, bool allow_smaller = false, bool prefetch = false) {
  Scope root = Scope::NewRootScope();
  Pipeline p;
  StringInputProducerOptions producer;
  producer.num_epochs = num_epochs;
  producer.shuffle = false;
  Output file_queue = StringInputProducer(root, ops::StringVector(files), producer, &p.input);
  ops::FixedLengthRecordReaderAttrs attrs;
  attrs.header_bytes = 1;
  attrs.record_bytes = 2;
  Output reader = ops::FixedLengthRecordReader(root, attrs);
  ops::ReaderOutputs record = ops::ReaderRead(root, reader, file_queue);
  Output value = ops::Reshape(root, ops::DecodeRaw(root, record.value, DT_UINT8), {2});
  BatchOptions batch;
  batch.batch_size = batch_size;
  batch.capacity = 8;
  batch.num_threads = 2;
  batch.allow_smaller_final_batch = allow_smaller;
  batch.min_after_dequeue = 2;
  batch.seed = 3;
  OutputList out = shuffle_batch ? ShuffleBatch(root, {value}, batch, &p.input) : Batch(root, {value}, batch, &p.input);
  if (prefetch) {
    const PartialTensorShape batched = out[0].shape();
    out = PrefetchQueue(root, out, PrefetchOptions(), &p.input);
    REQUIRE(out.size() == 1);
    CHECK(out[0].shape().DebugString() == batched.DebugString());  // the static shape survives the queue
  }
  PipelineLocalInit(root.WithOpName("local_init"), p.input);
  Status s = root.ToGraphDef(&p.graph);
  INFO(s.ToString());
  REQUIRE(s.ok());
  p.batch = out[0].name();
  return p;
}

TEST_CASE("queue runners feed a batch until the last epoch; OutOfRange then ends training cleanly", "[input]") {
  TempDir dir;
  std::vector<std::string> files;
  for (int f = 0; f < 3; ++f) {
    files.push_back(dir.File("part" + std::to_string(f)));
    WriteBytes(files.back(), std::string("H") + char('a' + 4 * f) + char('b' + 4 * f) + char('c' + 4 * f) + char('d' + 4 * f));
  }
  for (bool shuffle : {false, true}) {
    Pipeline p = MakePipeline(files, /*num_epochs=*/2, shuffle, /*batch_size=*/4);
    auto session = testing::NewSessionWith(p.graph);
    std::vector<Tensor> out;
    REQUIRE(session->Run({}, {}, {"local_init"}, &out).ok());
    Coordinator coord;
    REQUIRE(StartQueueRunners(session.get(), p.input.queue_runners, &coord).ok());
    std::map<std::string, int> seen;
    int batches = 0;
    Status end;
    while (!coord.ShouldStop()) {
      Status s = session->Run({}, {p.batch}, {}, &out);
      if (!s.ok()) {
        end = s;
        coord.RequestStop(s);
        break;
      }
      ++batches;
      for (int i = 0; i < 4; ++i) seen[std::string(reinterpret_cast<const char*>(out[0].base<uint8_t>()) + 2 * i, 2)]++;
    }
    INFO("shuffle " << shuffle << ": " << end.ToString());
    CHECK(end.code() == error::OUT_OF_RANGE);
    CHECK(batches == 3);  // 6 records x 2 epochs in batches of 4
    CHECK(seen.size() == 6);
    for (const auto& [record, times] : seen) CHECK(times == 2);
    CHECK(coord.Join().ok());
  }
}

TEST_CASE("a prefetch queue hands over whole batches in order, the smaller last one too, then OutOfRange",
          "[input]") {
  TempDir dir;
  std::vector<std::string> files;
  for (int f = 0; f < 3; ++f) {
    files.push_back(dir.File("part" + std::to_string(f)));
    WriteBytes(files.back(), std::string("H") + char('a' + 4 * f) + char('b' + 4 * f) + char('c' + 4 * f) + char('d' + 4 * f));
  }
  Pipeline p = MakePipeline(files, /*num_epochs=*/2, /*shuffle_batch=*/false, /*batch_size=*/5,
                            /*allow_smaller=*/true, /*prefetch=*/true);
  CHECK(p.input.queue_runners.size() == 3);  // file names, batches, prefetched batches
  auto session = testing::NewSessionWith(p.graph);
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {}, {"local_init"}, &out).ok());
  Coordinator coord;
  REQUIRE(StartQueueRunners(session.get(), p.input.queue_runners, &coord).ok());
  std::vector<int64_t> sizes;
  std::string records;
  Status end;
  while (true) {
    Status s = session->Run({}, {p.batch}, {}, &out);
    if (!s.ok()) {
      end = s;
      break;
    }
    sizes.push_back(out[0].dim_size(0));
    records.append(reinterpret_cast<const char*>(out[0].base<uint8_t>()), out[0].NumElements());
  }
  coord.RequestStop();
  INFO(end.ToString());
  CHECK(end.code() == error::OUT_OF_RANGE);
  CHECK(sizes == std::vector<int64_t>{5, 5, 2});  // 6 records x 2 epochs
  // Two batch threads may swap records; every record comes twice.
  std::sort(records.begin(), records.end());
  CHECK(records == "aabbccddeeffgghhiijjkkll");
  CHECK(coord.Join().ok());
}

TEST_CASE("a runner's error stops the coordinator, which reports it from Join", "[input]") {
  TempDir dir;
  const std::string file = dir.File("odd");
  WriteBytes(file, "Habc");  // a 3-byte record where DecodeRaw int16 needs an even length
  Scope root = Scope::NewRootScope();
  InputPipeline input;
  Output file_queue = StringInputProducer(root, ops::StringVector({file}), {}, &input);
  ops::FixedLengthRecordReaderAttrs attrs;
  attrs.header_bytes = 1;
  attrs.record_bytes = 3;
  ops::ReaderOutputs record = ops::ReaderRead(root, ops::FixedLengthRecordReader(root, attrs), file_queue);
  Output decoded = ops::Reshape(root, ops::DecodeRaw(root, record.value, DT_INT16), {1});
  BatchOptions batch;
  batch.batch_size = 1;
  OutputList out = Batch(root, {decoded}, batch, &input);
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto session = testing::NewSessionWith(def);
  Coordinator coord;
  REQUIRE(StartQueueRunners(session.get(), input.queue_runners, &coord).ok());
  CHECK(coord.WaitForStop(std::chrono::seconds(10)));
  Status joined = coord.Join();
  CHECK(joined.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(joined.message(), Catch::Contains("not a multiple of 2"));
}

TEST_CASE("Join before RequestStop is refused; a stop releases runners blocked on a full queue", "[input]") {
  TempDir dir;
  WriteBytes(dir.File("f"), "Habcdefgh");
  Pipeline p = MakePipeline({dir.File("f")}, /*num_epochs=*/0, /*shuffle=*/false, 2);
  auto session = testing::NewSessionWith(p.graph);
  Coordinator coord;
  REQUIRE(StartQueueRunners(session.get(), p.input.queue_runners, &coord).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the queues fill up and block
  CHECK(coord.Join().code() == error::FAILED_PRECONDITION);
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {p.batch}, {}, &out).ok());
  coord.RequestStop();
  CHECK(coord.Join().ok());
}

TEST_CASE("a FixedLengthRecordReader reads Debian's gzipped Fashion-MNIST IDX files directly", "[input]") {
  const std::string images = DefaultFashionMnistDir() + "/t10k-images-idx3-ubyte.gz";
  if (!fs::exists(images)) {
    WARN("skipped: " << images << " is missing");
    return;
  }
  auto expected = LoadFashionMnist(DefaultFashionMnistDir(), "t10k");
  REQUIRE(expected.ok());
  auto session = ReaderSession({images}, [](const Scope& s) {
    ops::FixedLengthRecordReaderAttrs attrs;
    attrs.header_bytes = 16;
    attrs.record_bytes = 784;
    attrs.encoding = "GZIP";
    return ops::FixedLengthRecordReader(s, attrs);
  });
  std::vector<Tensor> out;
  REQUIRE(session->Run({{"n", Tensor::Scalar<int64_t>(100000)}}, {"read_up_to:1"}, {}, &out).ok());
  REQUIRE(out[0].NumElements() == 10000);
  const std::string& last = out[0].base<std::string>()[9999];
  CHECK(std::equal(last.begin(), last.end(), expected->images.begin() + 9999 * 784,
                   [](char a, uint8_t b) { return static_cast<uint8_t>(a) == b; }));
}

}  // namespace
}  // namespace tensoract
