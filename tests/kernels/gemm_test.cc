// gemm::Sgemm against a naive double-precision product over many shapes: every transpose
// combination, accumulate or not, edges of the register tiles (6 x 64, 8 x 32 and 12 x 16
// with AVX-512; 6 x 16 and 12 x 8 with AVX2) and of the cache blocks, and the paths for few
// rows (B read in place, or c^T computed and transposed). Then gemm's convolutions, called
// directly, against naive loops, and one head of attention (gemm::AttentionHead). The same file also builds as gemm_wide_emulated_tests,
// which runs the AVX-512 shapes on emulated vectors (kernels/cpu/simd.h).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/gemm.h"

namespace tensoract {
namespace {

void CheckProduct(bool ta, bool tb, int64_t m, int64_t n, int64_t k, bool accumulate, std::mt19937* rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  // Leading dimensions a little larger than needed, so strides are exercised too.
  const int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 1, ldc = n + 2;
  std::vector<float> a((ta ? k : m) * lda + 1), b((tb ? n : k) * ldb + 1), c(m * ldc + 1);
  for (float& v : a) v = u(*rng);
  for (float& v : b) v = u(*rng);
  for (float& v : c) v = u(*rng);
  std::vector<float> before = c;
  gemm::Sgemm(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc, accumulate);
  INFO("ta " << ta << " tb " << tb << " m " << m << " n " << n << " k " << k << " accumulate " << accumulate);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double want = accumulate ? before[i * ldc + j] : 0.0;
      for (int64_t p = 0; p < k; ++p) {
        want += double(ta ? a[p * lda + i] : a[i * lda + p]) * double(tb ? b[j * ldb + p] : b[p * ldb + j]);
      }
      const double got = c[i * ldc + j];
      if (std::abs(got - want) > 1e-4 * (k + 1)) {
        FAIL("c[" << i << "," << j << "] = " << got << ", want " << want);
      }
    }
    // Padding between rows is untouched.
    for (int64_t j = n; j < ldc && i * ldc + j < static_cast<int64_t>(c.size()); ++j) {
      REQUIRE(c[i * ldc + j] == before[i * ldc + j]);
    }
  }
}

TEST_CASE("Sgemm matches a naive product for every transpose, edge and path") {
  std::mt19937 rng(7);
  const std::vector<int64_t> sizes = {1, 5, 6, 7, 63, 64, 65, 130};
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (int64_t m : sizes) {
        for (int64_t n : sizes) {
          CheckProduct(ta, tb, m, n, 1 + (m * 7 + n) % 40, (m + n) % 2 == 0, &rng);
        }
      }
    }
  }
  // Longer k crosses the (at most) 512-deep blocks, split equally (1025 = 342 + 342 + 341);
  // a tall m crosses the 192-row blocks.
  CheckProduct(false, false, 400, 70, 600, false, &rng);
  CheckProduct(false, false, 200, 130, 1025, true, &rng);
  CheckProduct(true, false, 400, 65, 1100, false, &rng);
  CheckProduct(true, false, 37, 200, 513, true, &rng);
  CheckProduct(false, true, 64, 300, 257, false, &rng);
  CheckProduct(true, true, 260, 33, 300, true, &rng);
  // Wide n crosses the 512-column blocks of B (a partial last one).
  CheckProduct(false, false, 200, 1100, 70, false, &rng);
  CheckProduct(false, true, 300, 700, 90, true, &rng);
  // A packed too (AVX2, n >= 512): k across the 256-deep blocks and rows across the blocks
  // of A, with partial panels of rows and of 8 k.
  CheckProduct(false, false, 151, 530, 603, true, &rng);
  // A few rows (m <= 4) stream B's rows: k not a multiple of 4, partial vectors of columns,
  // a transposed A, accumulating.
  for (int64_t m : {2, 3, 4}) {
    for (bool ta : {false, true}) {
      for (int64_t n : {1, 7, 8, 9, 1000}) {
        CheckProduct(ta, false, m, n, 3 + n % 11 + m, (m + n) % 2 == 1, &rng);
        CheckProduct(ta, m == 3, m, n, 1283, n % 2 == 0, &rng);
      }
    }
  }
  // k = 0: c is zeroed, or kept when accumulating.
  CheckProduct(false, false, 5, 9, 0, false, &rng);
  CheckProduct(false, true, 5, 9, 0, true, &rng);
}

// A random vector of n floats in [-1, 1].
std::vector<float> RandomFloats(int64_t n, std::mt19937* rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = u(*rng);
  return v;
}

// A stride-1 convolution's geometry, SAME or VALID.
conv::ConvDims Dims(int64_t batch, int64_t rows, int64_t cols, int64_t in_depth, int64_t filter, int64_t out_depth,
                    bool same) {
  conv::ConvDims d;
  d.batch = batch;
  d.in_rows = rows;
  d.in_cols = cols;
  d.in_depth = in_depth;
  d.filter_rows = d.filter_cols = filter;
  d.out_depth = out_depth;
  d.out_rows = same ? rows : rows - filter + 1;
  d.out_cols = same ? cols : cols - filter + 1;
  d.pad_top = d.pad_left = same ? (filter - 1) / 2 : 0;
  return d;
}

// The input pixel under tap (fr, fc) of output pixel (oh, ow), or -1 in the padding.
int64_t InputPixel(const conv::ConvDims& d, int64_t oh, int64_t ow, int64_t fr, int64_t fc) {
  const int64_t ih = oh - d.pad_top + fr, iw = ow - d.pad_left + fc;
  return ih < 0 || ih >= d.in_rows || iw < 0 || iw >= d.in_cols ? -1 : ih * d.in_cols + iw;
}

void ExpectCloseGemm(const std::vector<float>& got, const std::vector<double>& want, double tolerance,
                 const std::string& what) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::abs(got[i] - want[i]) > tolerance) FAIL(what << "[" << i << "] = " << got[i] << ", want " << want[i]);
  }
}

// Forward, input gradient and filter gradient (with the bias gradient) of one convolution,
// each against naive loops.
void CheckConvolution(const conv::ConvDims& d, std::mt19937* rng) {
  INFO("in " << d.in_rows << "x" << d.in_cols << "x" << d.in_depth << " filter " << d.filter_rows << " out depth "
             << d.out_depth << " pad " << d.pad_top);
  const int64_t in_pixels = d.in_rows * d.in_cols, out_pixels = d.out_rows * d.out_cols;
  const int64_t taps = d.filter_rows * d.filter_cols, ci = d.in_depth, co = d.out_depth;
  const std::vector<float> input = RandomFloats(d.batch * in_pixels * ci, rng);
  const std::vector<float> filter = RandomFloats(taps * ci * co, rng);
  const std::vector<float> dy = RandomFloats(d.batch * out_pixels * co, rng);
  std::vector<double> want_y(d.batch * out_pixels * co, 0.0), want_dx(input.size(), 0.0);
  std::vector<double> want_dw(filter.size(), 0.0), want_db(co, 0.0);
  for (int64_t b = 0; b < d.batch; ++b) {
    for (int64_t oh = 0; oh < d.out_rows; ++oh) {
      for (int64_t ow = 0; ow < d.out_cols; ++ow) {
        const int64_t o = (b * out_pixels + oh * d.out_cols + ow) * co;
        for (int64_t j = 0; j < co; ++j) want_db[j] += dy[o + j];
        for (int64_t fr = 0; fr < d.filter_rows; ++fr) {
          for (int64_t fc = 0; fc < d.filter_cols; ++fc) {
            const int64_t pixel = InputPixel(d, oh, ow, fr, fc);
            if (pixel < 0) continue;
            const int64_t x = (b * in_pixels + pixel) * ci, w = (fr * d.filter_cols + fc) * ci * co;
            for (int64_t c = 0; c < ci; ++c) {
              for (int64_t j = 0; j < co; ++j) {
                want_y[o + j] += double(input[x + c]) * filter[w + c * co + j];
                want_dx[x + c] += double(dy[o + j]) * filter[w + c * co + j];
                want_dw[w + c * co + j] += double(input[x + c]) * dy[o + j];
              }
            }
          }
        }
      }
    }
  }
  const double tolerance = 1e-4 * (taps * std::max(ci, co) + d.batch * out_pixels);
  const int64_t pixels = d.batch * out_pixels;

  std::vector<float> y(want_y.size(), -7.f);
  if (ci == 1) {
    REQUIRE(gemm::ConvForwardDepth1(d, input.data(), filter.data(), 0, d.batch, y.data()));
  } else {
    gemm::PackedFilter packed;
    gemm::PackFilter(filter.data(), taps * ci, co, &packed);
    // In two ranges of pixels, the first ending mid-tile.
    REQUIRE(gemm::ConvForward(d, input.data(), packed, 0, pixels / 2 + 1, y.data()));
    REQUIRE(gemm::ConvForward(d, input.data(), packed, pixels / 2 + 1, pixels, y.data()));
  }
  ExpectCloseGemm(y, want_y, tolerance, "output");

  if (ci > 1) {
    conv::ConvDims as_conv;
    REQUIRE(gemm::BackpropInputAsConv(d, &as_conv));
    gemm::PackedFilter flipped;
    gemm::PackFlippedFilter(d, filter.data(), &flipped);
    std::vector<float> dx(input.size(), -7.f);
    REQUIRE(gemm::ConvForward(as_conv, dy.data(), flipped, 0, d.batch * in_pixels, dx.data()));
    ExpectCloseGemm(dx, want_dx, tolerance, "input gradient");
  }

  // Added to what is there: start from ones.
  std::vector<float> dw(filter.size(), 1.f), db(co, 1.f);
  for (double& v : want_dw) v += 1.0;
  for (double& v : want_db) v += 1.0;
  if (ci == 1) {
    REQUIRE(gemm::ConvBackpropFilterDepth1(d, input.data(), dy.data(), 0, d.batch, dw.data(), db.data()));
  } else {
    REQUIRE(gemm::ConvBackpropFilter(d, input.data(), dy.data(), 0, d.batch, dw.data(), db.data()));
  }
  ExpectCloseGemm(dw, want_dw, tolerance, "filter gradient");
  ExpectCloseGemm(db, want_db, tolerance, "bias gradient");
}

TEST_CASE("gemm's convolutions match naive loops for every tile shape and edge") {
  if (!gemm::HaveFastKernels()) {
    WARN("skipped: built without AVX-512 or AVX2 (the kernels decline; the im2col paths are tested elsewhere)");
    return;
  }
  INFO("kernels " << gemm::KernelIsa());
  std::mt19937 rng(11);
  // Out depths that pick each tile (64 and 128: 6 x 64 panels with AVX-512; 32, 40: 8 x 32;
  // 16, 5: the narrow ones; with AVX2 all 16 wide but 5 and 8) and leave partial vectors
  // (5, 40, 70); in depths from 8 to 32 and an odd 13 (the filter gradient's partial rows
  // of input depths); images narrower than a tile.
  for (int64_t co : {5, 8, 16, 32, 40, 64, 70, 128}) {
    for (int64_t ci : {8, 13, 32}) {
      CheckConvolution(Dims(2, 7, 9, ci, 5, co, /*same=*/true), &rng);
    }
  }
  CheckConvolution(Dims(3, 6, 5, 16, 3, 24, /*same=*/false), &rng);
  CheckConvolution(Dims(1, 3, 2, 10, 3, 33, /*same=*/true), &rng);
  // 1-deep inputs (a first layer on grey images): 5x5 and 3x3 filters.
  for (int64_t co : {5, 16, 32, 40}) {
    CheckConvolution(Dims(2, 11, 13, 1, 5, co, /*same=*/true), &rng);
    CheckConvolution(Dims(2, 8, 9, 1, 3, co, /*same=*/false), &rng);
  }
}

// One head of attention against double loops: every tile path (12 x 1 vector for a value
// depth of one vector, 6 x 4 and 6 x 1 vectors past it), rows past a tile, keys past a
// vector, a mask, strided rows.
TEST_CASE("AttentionHead is softmax(scale q k^T + mask) v for every tile shape and edge") {
  if (!gemm::HaveFastKernels()) {
    WARN("skipped: no vector kernels in this build (AttentionHead answers false)");
    return;
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  struct Shape { int64_t t, s, h, hv; bool masked; };
  for (const Shape& sh : {Shape{1, 1, 1, 1, false}, Shape{13, 17, 16, 16, false}, Shape{25, 197, 16, 16, true},
                          Shape{7, 70, 64, 70, false}, Shape{12, 33, 20, 5, true}, Shape{30, 129, 8, 100, false}}) {
    const int64_t ldq = sh.h + 3, ldk = sh.h + 1, ldv = sh.hv + 2, ldo = sh.hv + 4, ldm = sh.s + 1;
    std::vector<float> q(sh.t * ldq), k(sh.s * ldk), v(sh.s * ldv), mask(sh.t * ldm), out(sh.t * ldo, 42.f);
    for (auto* x : {&q, &k, &v, &mask}) {
      for (float& e : *x) e = u(rng);
    }
    const float scale = 0.7f;
    INFO("t " << sh.t << " s " << sh.s << " h " << sh.h << " hv " << sh.hv << " masked " << sh.masked);
    REQUIRE(gemm::AttentionHead(sh.t, sh.s, sh.h, sh.hv, q.data(), ldq, k.data(), ldk, v.data(), ldv, scale,
                                sh.masked ? mask.data() : nullptr, ldm, out.data(), ldo));
    std::vector<double> p(sh.s);
    for (int64_t i = 0; i < sh.t; ++i) {
      double most = -1e300, sum = 0;
      for (int64_t j = 0; j < sh.s; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < sh.h; ++d) dot += double(q[i * ldq + d]) * k[j * ldk + d];
        p[j] = scale * dot + (sh.masked ? mask[i * ldm + j] : 0.0);
        most = std::max(most, p[j]);
      }
      for (double& x : p) sum += (x = std::exp(x - most));
      for (int64_t d = 0; d < sh.hv; ++d) {
        double want = 0;
        for (int64_t j = 0; j < sh.s; ++j) want += p[j] / sum * v[j * ldv + d];
        const double got = out[i * ldo + d];
        if (std::abs(got - want) > 1e-5 * (1 + std::abs(want))) FAIL("out[" << i << "," << d << "] = " << got << ", want " << want);
      }
      for (int64_t d = sh.hv; d < ldo; ++d) REQUIRE(out[i * ldo + d] == 42.f);  // the stride's gap untouched
    }
  }
}

}  // namespace
}  // namespace tensoract
