// V2 checkpoints below the graph: CRC32C, the LevelDB-format table, tensor bundles, and
// what a reader says about missing, truncated and corrupt files.
// (tests/compat/tf_checkpoint_compat.py checks the same files against TensorFlow.)
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "base/proto_io.h"
#include "kernels/checkpoint/crc32c.h"
#include "kernels/checkpoint/table_builder.h"
#include "kernels/checkpoint/table_reader.h"
#include "kernels/checkpoint/tensor_bundle.h"
#include "tests/temp_dir.h"

namespace tensoract {
namespace {

namespace fs = std::filesystem;

using testing::TempDir;

std::string ReadAll(const std::string& path) {
  std::string s;
  REQUIRE(ReadFileToString(path, &s).ok());
  return s;
}

void WriteAll(const std::string& path, const std::string& s) { REQUIRE(WriteStringToFile(path, s).ok()); }

TEST_CASE("crc32c gives the standard check values and extends piecewise") {
  CHECK(crc32c::Value("123456789", 9) == 0xe3069283u);
  CHECK(crc32c::Value("", 0) == 0);
  // RFC 3720 (iSCSI) B.4 vectors.
  std::string zeros(32, '\0'), ones(32, '\xff'), inc(32, '\0');
  for (int i = 0; i < 32; ++i) inc[i] = static_cast<char>(i);
  CHECK(crc32c::Value(zeros.data(), 32) == 0x8a9136aau);
  CHECK(crc32c::Value(ones.data(), 32) == 0x62a8ab43u);
  CHECK(crc32c::Value(inc.data(), 32) == 0x46dd794eu);
  const std::string s = "hello, checkpoint world; long enough for the eight-byte loop";
  for (size_t cut : {size_t{0}, size_t{1}, size_t{7}, size_t{13}, s.size()}) {
    CHECK(crc32c::Extend(crc32c::Value(s.data(), cut), s.data() + cut, s.size() - cut) ==
          crc32c::Value(s.data(), s.size()));
  }
  const uint32_t c = crc32c::Value(s.data(), s.size());
  CHECK(crc32c::Mask(c) != c);
  CHECK(crc32c::Unmask(crc32c::Mask(c)) == c);
}

TEST_CASE("a table with many keys over several blocks reads back every entry, in order") {
  table::TableOptions options;
  options.block_size = 256;  // many small blocks
  table::TableBuilder builder(options);
  std::vector<std::pair<std::string, std::string>> kv;
  for (int i = 0; i < 1000; ++i) {
    char key[32];
    std::snprintf(key, sizeof(key), "key/%06d", i * 7);
    kv.emplace_back(key, std::string(static_cast<size_t>(i % 37), static_cast<char>('a' + i % 26)));
  }
  for (const auto& [k, v] : kv) REQUIRE(builder.Add(k, v).ok());
  REQUIRE(builder.Finish().ok());
  const std::string bytes = builder.contents();
  CHECK(bytes.size() > 10 * options.block_size);

  auto t = table::Table::Open(bytes, "mem.table");
  REQUIRE(t.ok());
  for (const auto& [k, v] : kv) {
    std::string got;
    REQUIRE((*t)->Get(k, &got).ok());
    CHECK(got == v);
  }
  std::string got;
  CHECK((*t)->Get("key/000001", &got).code() == error::NOT_FOUND);
  CHECK((*t)->Get("zzz", &got).code() == error::NOT_FOUND);
  CHECK((*t)->Get("", &got).code() == error::NOT_FOUND);
  size_t i = 0;
  REQUIRE((*t)
              ->ForEach([&](std::string_view k, std::string_view v) {
                CHECK(i < kv.size());
                CHECK(k == kv[i].first);
                CHECK(v == kv[i].second);
                ++i;
                return Status::OK();
              })
              .ok());
  CHECK(i == kv.size());
}

TEST_CASE("a table refuses keys out of order, and an empty table is valid") {
  table::TableBuilder builder;
  REQUIRE(builder.Add("b", "1").ok());
  Status s = builder.Add("a", "2");
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("strictly increasing"));

  table::TableBuilder empty;
  REQUIRE(empty.Finish().ok());
  auto t = table::Table::Open(empty.contents(), "empty");
  REQUIRE(t.ok());
  std::string v;
  CHECK((*t)->Get("x", &v).code() == error::NOT_FOUND);
}

TEST_CASE("a corrupt or truncated table is DataLoss naming the file; compression is Unimplemented") {
  table::TableBuilder builder;
  for (int i = 0; i < 50; ++i) REQUIRE(builder.Add("k" + std::to_string(100 + i), "value").ok());
  REQUIRE(builder.Finish().ok());
  const std::string good = builder.contents();

  auto t = table::Table::Open(good.substr(0, good.size() - 3), "cut.index");
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == error::DATA_LOSS);
  CHECK_THAT(t.status().message(), Catch::Contains("cut.index"));

  CHECK(table::Table::Open("", "empty.index").status().code() == error::DATA_LOSS);

  // Flip a byte inside the data block: the block's CRC no longer matches.
  std::string bad = good;
  bad[5] ^= 0x40;
  t = table::Table::Open(bad, "flip.index");
  REQUIRE(t.ok());  // the index block is intact
  std::string v;
  Status s = (*t)->Get("k120", &v);
  CHECK(s.code() == error::DATA_LOSS);
  CHECK_THAT(s.message(), Catch::Contains("checksum mismatch"));

  // Mark the data block Snappy-compressed (with a matching CRC): Unimplemented.
  std::string_view footer(good.data() + good.size() - table::kFooterSize, table::kFooterSize);
  table::BlockHandle meta, index;
  REQUIRE(meta.DecodeFrom(&footer));
  std::string snappy = good;
  const size_t type_at = meta.offset - table::kBlockTrailerSize;  // the data block ends where the meta-index starts
  snappy[type_at] = table::kSnappyCompression;
  const uint32_t crc = crc32c::Value(snappy.data(), type_at + 1);
  std::string fixed;
  table::PutFixed32(&fixed, crc32c::Mask(crc));
  snappy.replace(type_at + 1, 4, fixed);
  t = table::Table::Open(snappy, "snappy.index");
  REQUIRE(t.ok());
  s = (*t)->Get("k120", &v);
  CHECK(s.code() == error::UNIMPLEMENTED);
  CHECK_THAT(s.message(), Catch::Contains("Snappy"));
}

template <class T>
void CheckEqual(const Tensor& a, const Tensor& b) {
  REQUIRE(a.dtype() == b.dtype());
  REQUIRE(a.shape() == b.shape());
  for (int64_t i = 0; i < a.NumElements(); ++i) CHECK(a.base<T>()[i] == b.base<T>()[i]);
}

TEST_CASE("a bundle of every common dtype, scalars and empty tensors, reads back equal") {
  TempDir dir;
  const std::string prefix = dir / "sub/dir/model.ckpt";  // directories are made
  Tensor strings = Tensor::FromVector<std::string>({"", "a", std::string(300, 'x'), std::string("nul\0byte", 8)},
                                                   TensorShape({2, 2}));
  Tensor big_string = Tensor::Scalar<std::string>(std::string(70000, 'y'));
  {
    BundleWriter w(prefix);
    REQUIRE(w.Add("f32", Tensor::FromVector<float>({1.5f, -2.f, 3.25f, 0.f, 1e30f, -0.f}, TensorShape({2, 3}))).ok());
    REQUIRE(w.Add("f64", Tensor::FromVector<double>({3.141592653589793, -1e-300})).ok());
    REQUIRE(w.Add("i32", Tensor::Scalar<int32_t>(-7)).ok());
    REQUIRE(w.Add("i64", Tensor::FromVector<int64_t>({int64_t{1} << 40, -1})).ok());
    REQUIRE(w.Add("bool", Tensor::FromVector<bool>({true, false, true})).ok());
    REQUIRE(w.Add("str", strings).ok());
    REQUIRE(w.Add("str_scalar", big_string).ok());
    REQUIRE(w.Add("empty_f32", Tensor(tensorflow::DT_FLOAT, TensorShape({0, 3}))).ok());
    REQUIRE(w.Add("empty_str", Tensor(tensorflow::DT_STRING, TensorShape({0}))).ok());
    REQUIRE(w.Add("a/nested/name", Tensor::Scalar<float>(42.f)).ok());
    CHECK(w.Add("f32", Tensor::Scalar<float>(1)).code() == error::INVALID_ARGUMENT);
  }
  // The writer whose Add failed never finished: nothing visible.
  CHECK_FALSE(fs::exists(prefix + ".index"));

  BundleWriter w(prefix);
  REQUIRE(w.Add("f32", Tensor::FromVector<float>({1.5f, -2.f, 3.25f, 0.f, 1e30f, -0.f}, TensorShape({2, 3}))).ok());
  REQUIRE(w.Add("f64", Tensor::FromVector<double>({3.141592653589793, -1e-300})).ok());
  REQUIRE(w.Add("i32", Tensor::Scalar<int32_t>(-7)).ok());
  REQUIRE(w.Add("i64", Tensor::FromVector<int64_t>({int64_t{1} << 40, -1})).ok());
  REQUIRE(w.Add("bool", Tensor::FromVector<bool>({true, false, true})).ok());
  REQUIRE(w.Add("str", strings).ok());
  REQUIRE(w.Add("str_scalar", big_string).ok());
  REQUIRE(w.Add("empty_f32", Tensor(tensorflow::DT_FLOAT, TensorShape({0, 3}))).ok());
  REQUIRE(w.Add("empty_str", Tensor(tensorflow::DT_STRING, TensorShape({0}))).ok());
  REQUIRE(w.Add("a/nested/name", Tensor::Scalar<float>(42.f)).ok());
  REQUIRE(w.Finish().ok());
  CHECK(fs::exists(prefix + ".index"));
  CHECK(fs::exists(prefix + ".data-00000-of-00001"));
  // No temporary files are left behind.
  int files = 0;
  for (const auto& e : fs::directory_iterator(fs::path(prefix).parent_path())) {
    (void)e;
    ++files;
  }
  CHECK(files == 2);

  auto r = BundleReader::Open(prefix);
  REQUIRE(r.ok());
  CHECK((*r)->header().num_shards() == 1);
  CHECK((*r)->header().version().producer() == 1);
  CHECK((*r)->keys() == std::vector<std::string>{"a/nested/name", "bool", "empty_f32", "empty_str", "f32", "f64",
                                                  "i32", "i64", "str", "str_scalar"});
  Tensor t;
  REQUIRE((*r)->Lookup("f32", &t).ok());
  CheckEqual<float>(t, Tensor::FromVector<float>({1.5f, -2.f, 3.25f, 0.f, 1e30f, -0.f}, TensorShape({2, 3})));
  REQUIRE((*r)->Lookup("f64", &t).ok());
  CheckEqual<double>(t, Tensor::FromVector<double>({3.141592653589793, -1e-300}));
  REQUIRE((*r)->Lookup("i32", &t).ok());
  CheckEqual<int32_t>(t, Tensor::Scalar<int32_t>(-7));
  REQUIRE((*r)->Lookup("i64", &t).ok());
  CheckEqual<int64_t>(t, Tensor::FromVector<int64_t>({int64_t{1} << 40, -1}));
  REQUIRE((*r)->Lookup("bool", &t).ok());
  CheckEqual<bool>(t, Tensor::FromVector<bool>({true, false, true}));
  REQUIRE((*r)->Lookup("str", &t).ok());
  CheckEqual<std::string>(t, strings);
  REQUIRE((*r)->Lookup("str_scalar", &t).ok());
  CheckEqual<std::string>(t, big_string);
  REQUIRE((*r)->Lookup("empty_f32", &t).ok());
  CHECK(t.shape() == TensorShape({0, 3}));
  REQUIRE((*r)->Lookup("empty_str", &t).ok());
  CHECK(t.shape() == TensorShape({0}));
  CHECK(t.dtype() == tensorflow::DT_STRING);
  REQUIRE((*r)->Lookup("a/nested/name", &t).ok());
  CheckEqual<float>(t, Tensor::Scalar<float>(42.f));

  Status s = (*r)->Lookup("nope", &t);
  CHECK(s.code() == error::NOT_FOUND);
  CHECK_THAT(s.message(), Catch::Contains("nope"));
}

TEST_CASE("a missing checkpoint is NotFound; corrupt or truncated data is DataLoss naming file and tensor") {
  TempDir dir;
  auto missing = BundleReader::Open(dir / "nothing");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == error::NOT_FOUND);
  CHECK_THAT(missing.status().message(), Catch::Contains("nothing.index"));

  const std::string prefix = dir / "ckpt";
  {
    BundleWriter w(prefix);
    REQUIRE(w.Add("weights", Tensor::FromVector<float>({1, 2, 3, 4})).ok());
    REQUIRE(w.Add("names", Tensor::FromVector<std::string>({"alpha", "beta"})).ok());
    REQUIRE(w.Finish().ok());
  }
  const std::string data_path = prefix + ".data-00000-of-00001";
  const std::string data = ReadAll(data_path);
  REQUIRE(data.size() == 16 + 2 + 4 + 9);  // floats; then two varints, a checksum, "alphabeta"

  SECTION("a flipped byte in a float") {
    std::string bad = data;
    bad[16 + 2 + 4 + 9 - 20] ^= 1;  // inside "weights" (written first)
    WriteAll(data_path, bad);
    auto r = BundleReader::Open(prefix);
    REQUIRE(r.ok());
    Tensor t;
    Status s = (*r)->Lookup("weights", &t);
    CHECK(s.code() == error::DATA_LOSS);
    CHECK_THAT(s.message(), Catch::Contains("weights") && Catch::Contains(prefix));
    CHECK((*r)->Lookup("names", &t).ok());
  }
  SECTION("a flipped byte in a string, or in a string length") {
    for (size_t at : {size_t{16 + 2 + 4 + 1}, size_t{16}}) {
      std::string bad = data;
      bad[at] ^= 1;
      WriteAll(data_path, bad);
      auto r = BundleReader::Open(prefix);
      REQUIRE(r.ok());
      Tensor t;
      Status s = (*r)->Lookup("names", &t);
      CHECK(s.code() == error::DATA_LOSS);
      CHECK_THAT(s.message(), Catch::Contains("names"));
    }
  }
  SECTION("a truncated data file") {
    WriteAll(data_path, data.substr(0, 10));
    auto r = BundleReader::Open(prefix);
    REQUIRE(r.ok());
    Tensor t;
    Status s = (*r)->Lookup("names", &t);
    CHECK(s.code() == error::DATA_LOSS);
    CHECK_THAT(s.message(), Catch::Contains("names") && Catch::Contains(data_path));
  }
  SECTION("a missing data file") {
    fs::remove(data_path);
    auto r = BundleReader::Open(prefix);
    REQUIRE(r.ok());
    Tensor t;
    Status s = (*r)->Lookup("weights", &t);
    CHECK(s.code() == error::NOT_FOUND);
    CHECK_THAT(s.message(), Catch::Contains("weights") && Catch::Contains(data_path));
  }
  SECTION("a truncated or corrupt index") {
    const std::string index = ReadAll(prefix + ".index");
    for (size_t len : {size_t{0}, size_t{10}, index.size() - 1}) {
      WriteAll(prefix + ".index", index.substr(0, len));
      auto r = BundleReader::Open(prefix);
      REQUIRE_FALSE(r.ok());
      CHECK(r.status().code() == error::DATA_LOSS);
      CHECK_THAT(r.status().message(), Catch::Contains(prefix + ".index"));
    }
    // Every single flipped byte is either caught or harmless; none crashes.
    for (size_t i = 0; i < index.size(); ++i) {
      std::string bad = index;
      bad[i] ^= 0x5a;
      WriteAll(prefix + ".index", bad);
      auto r = BundleReader::Open(prefix);
      if (!r.ok()) {
        CHECK((r.status().code() == error::DATA_LOSS || r.status().code() == error::UNIMPLEMENTED));
        continue;
      }
      Tensor t;
      (*r)->Lookup("weights", &t).IgnoreError();
      (*r)->Lookup("names", &t).IgnoreError();
    }
  }
}

TEST_CASE("MergeBundles joins bundles and deletes the sources") {
  TempDir dir;
  const std::string a = dir / "part_a/ckpt", b = dir / "part_b/ckpt", dest = dir / "merged";
  {
    BundleWriter w(a);
    REQUIRE(w.Add("x", Tensor::Scalar<float>(1)).ok());
    REQUIRE(w.Finish().ok());
  }
  {
    BundleWriter w(b);
    REQUIRE(w.Add("y", Tensor::FromVector<int64_t>({5, 6})).ok());
    REQUIRE(w.Finish().ok());
  }
  SECTION("both present") {
    REQUIRE(MergeBundles({a, b}, dest).ok());
    auto r = BundleReader::Open(dest);
    REQUIRE(r.ok());
    CHECK((*r)->keys() == std::vector<std::string>{"x", "y"});
    Tensor t;
    REQUIRE((*r)->Lookup("y", &t).ok());
    CheckEqual<int64_t>(t, Tensor::FromVector<int64_t>({5, 6}));
    CHECK_FALSE(fs::exists(a + ".index"));
    CHECK_FALSE(fs::exists(dir / "part_a"));  // delete_old_dirs
  }
  SECTION("a missing one, allowed or not") {
    CHECK(MergeBundles({a, dir / "gone"}, dest).code() == error::NOT_FOUND);
    REQUIRE(MergeBundles({a, dir / "gone"}, dest, /*allow_missing_files=*/true).ok());
    CHECK(BundleReader::Open(dest).ok());
  }
  SECTION("a name in two of them") {
    REQUIRE(MergeBundles({a}, dir / "a2", false, false).ok());
    BundleWriter w(dir / "a3");
    REQUIRE(w.Add("x", Tensor::Scalar<float>(2)).ok());
    REQUIRE(w.Finish().ok());
    CHECK(MergeBundles({dir / "a2", dir / "a3"}, dest).code() == error::INVALID_ARGUMENT);
  }
}

}  // namespace
}  // namespace tensoract
