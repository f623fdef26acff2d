// IDX files (plain and gzipped, good and broken), Fashion-MNIST from Debian's package, and
// the Batcher's batches and per-epoch order.
#include <catch2/catch.hpp>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "data/batcher.h"
#include "data/fashion_mnist.h"
#include "data/idx_file.h"

namespace tensoract {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/tensoract_idx_" + std::to_string(::getpid()) + "_" + name;
}

std::string IdxBytes(const std::vector<uint32_t>& dims, const std::vector<uint8_t>& values) {
  std::string s = {0, 0, 8, static_cast<char>(dims.size())};
  for (uint32_t d : dims) {
    s += static_cast<char>(d >> 24);
    s += static_cast<char>(d >> 16);
    s += static_cast<char>(d >> 8);
    s += static_cast<char>(d);
  }
  s.append(values.begin(), values.end());
  return s;
}

void WritePlain(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

void WriteGzip(const std::string& path, const std::string& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) == static_cast<int>(bytes.size()));
  gzclose(f);
}

TEST_CASE("IDX files read the same plain and gzipped", "[data]") {
  std::vector<uint8_t> values = {0, 1, 2, 3, 4, 5, 250, 251, 252, 253, 254, 255};
  const std::string bytes = IdxBytes({2, 3, 2}, values);
  const std::string plain = TempPath("plain.idx"), gz = TempPath("packed.idx.gz");
  WritePlain(plain, bytes);
  WriteGzip(gz, bytes);
  for (const std::string& path : {plain, gz}) {
    auto a = ReadIdxFile(path);
    REQUIRE(a.ok());
    CHECK(a->dims == std::vector<int64_t>{2, 3, 2});
    CHECK(a->values == values);
    std::remove(path.c_str());
  }
}

TEST_CASE("broken IDX files give errors that name the file", "[data]") {
  SECTION("missing") {
    auto a = ReadIdxFile(TempPath("does-not-exist"));
    REQUIRE(a.status().code() == error::NOT_FOUND);
    CHECK_THAT(a.status().message(), Catch::Contains("does-not-exist"));
  }
  SECTION("truncated elements") {
    std::string bytes = IdxBytes({4, 4}, std::vector<uint8_t>(16, 7));
    const std::string path = TempPath("short.idx.gz");
    WriteGzip(path, bytes.substr(0, bytes.size() - 3));
    auto a = ReadIdxFile(path);
    REQUIRE(a.status().code() == error::DATA_LOSS);
    CHECK_THAT(a.status().message(), Catch::Contains("short.idx.gz") && Catch::Contains("13 of the 16 bytes"));
    std::remove(path.c_str());
  }
  SECTION("not IDX") {
    const std::string path = TempPath("text.idx");
    WritePlain(path, "hello, world");
    auto a = ReadIdxFile(path);
    REQUIRE(a.status().code() == error::DATA_LOSS);
    CHECK_THAT(a.status().message(), Catch::Contains("magic"));
    std::remove(path.c_str());
  }
  SECTION("float elements") {
    const std::string path = TempPath("float.idx");
    WritePlain(path, std::string("\0\0\x0d\x01\0\0\0\0", 8));
    CHECK(ReadIdxFile(path).status().code() == error::UNIMPLEMENTED);
    std::remove(path.c_str());
  }
}

ImageDataset Tiny(int64_t n) {
  ImageDataset ds;
  ds.count = n;
  ds.rows = 2;
  ds.cols = 2;
  for (int64_t i = 0; i < n; ++i) {
    for (int p = 0; p < 4; ++p) ds.images.push_back(static_cast<uint8_t>(i));
    ds.labels.push_back(static_cast<uint8_t>(i % 10));
  }
  return ds;
}

// The example ids of one epoch, in order (each image's pixels are its id).
std::vector<int> EpochOrder(Batcher& b, int64_t epoch, std::vector<int64_t>* sizes = nullptr) {
  b.StartEpoch(epoch);
  std::vector<int> ids;
  Tensor x, y;
  while (b.Next(&x, &y)) {
    if (sizes) sizes->push_back(x.dim_size(0));
    for (int64_t i = 0; i < x.dim_size(0); ++i) {
      const int id = static_cast<int>(std::lround(x.base<float>()[i * 4] * 255));
      CHECK(y.base<int32_t>()[i] == id % 10);
      ids.push_back(id);
    }
  }
  return ids;
}

TEST_CASE("Batcher: every example once per epoch, a new order each epoch, the same for the same seed", "[data]") {
  ImageDataset ds = Tiny(103);
  Batcher a(&ds, {/*batch_size=*/10, /*shuffle=*/true, /*seed=*/7});
  Batcher b(&ds, {10, true, 7});
  std::vector<int64_t> sizes;
  auto e0 = EpochOrder(a, 0, &sizes);
  CHECK(std::set<int>(e0.begin(), e0.end()).size() == 103);
  CHECK(sizes.size() == 11);
  CHECK(sizes.back() == 3);
  CHECK(a.batches_per_epoch() == 11);
  auto e1 = EpochOrder(a, 1);
  CHECK(e0 != e1);
  CHECK(EpochOrder(b, 1) == e1);  // resuming at epoch 1 sees the same order
  CHECK(EpochOrder(a, 0) == e0);
}

TEST_CASE("Batcher: images flat or NHWC, scaled to [0, 1]; drop_remainder", "[data]") {
  ImageDataset ds = Tiny(5);
  Batcher flat(&ds, {2, false, 0, /*flatten=*/true, /*drop_remainder=*/true});
  Batcher nhwc(&ds, {2, false, 0, /*flatten=*/false});
  Tensor x, y;
  REQUIRE(flat.Next(&x, &y));
  CHECK(x.shape() == TensorShape({2, 4}));
  CHECK(x.base<float>()[4] == Approx(1 / 255.0f));
  CHECK(y.dtype() == tensorflow::DT_INT32);
  REQUIRE(flat.Next(&x, &y));
  CHECK_FALSE(flat.Next(&x, &y));  // the fifth example would make a batch of 1
  CHECK(flat.batches_per_epoch() == 2);
  REQUIRE(nhwc.Next(&x, &y));
  CHECK(x.shape() == TensorShape({2, 2, 2, 1}));
}

TEST_CASE("Fashion-MNIST from Debian's dataset-fashion-mnist", "[data]") {
  auto train = LoadFashionMnist(DefaultFashionMnistDir(), "train");
  auto test = LoadFashionMnist(DefaultFashionMnistDir(), "t10k");
  REQUIRE(train.ok());
  REQUIRE(test.ok());
  CHECK(train->count == 60000);
  CHECK(test->count == 10000);
  CHECK(train->rows == 28);
  CHECK(train->cols == 28);
  // Every class appears 6,000 times in the training set.
  std::vector<int> per_class(10);
  for (uint8_t l : train->labels) per_class[l]++;
  for (int c = 0; c < 10; ++c) CHECK(per_class[c] == 6000);
  CHECK(LoadFashionMnist(DefaultFashionMnistDir(), "validation").status().code() == error::INVALID_ARGUMENT);
  CHECK(LoadFashionMnist("/nonexistent", "train").status().code() == error::NOT_FOUND);
}

}  // namespace
}  // namespace tensoract
