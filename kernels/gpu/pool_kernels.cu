// GPU kernels of MaxPool, AvgPool and their gradients over NHWC windows of any padding, for
// the pools cuDNN does not compute (cudnn_ops.cc; launchers.h): each output or input
// element one thread, computed as the CPU kernels compute it (kernels/cpu/pooling_ops.cc):
// a max scans its window in raster order and a tap takes over only when larger (a NaN tap
// never does); an average sums in raster order and divides by the taps inside the input;
// the gradients gather, for each input element, from the windows that hold it in output
// order. Gathering writes every element once, so no zero fill and no atomics (the sums are
// the CPU's, bit for bit, and deterministic).
#include "kernels/gpu/launchers.h"

namespace tensoract {
namespace gpu {
namespace {

// Output (oh, ow)'s window clipped to the input: rows [r0, r1), cols [c0, c1).
struct Window {
  int64_t r0, r1, c0, c1;
};
__device__ Window WindowOf(const PoolGeometry& g, int64_t oh, int64_t ow) {
  Window w;
  w.r0 = oh * g.sh - g.pad_top;
  w.c0 = ow * g.sw - g.pad_left;
  w.r1 = min(w.r0 + g.kh, g.h);
  w.c1 = min(w.c0 + g.kw, g.w);
  w.r0 = max(w.r0, int64_t{0});
  w.c0 = max(w.c0, int64_t{0});
  return w;
}

// The outputs whose windows hold input row (or column) `i`: [first, last].
__device__ void OutputsHolding(int64_t i, int64_t pad, int64_t k, int64_t s, int64_t outs, int64_t* first,
                               int64_t* last) {
  const int64_t p = i + pad;  // position in the padded input
  *first = p < k ? 0 : (p - k) / s + 1;
  *last = min(p / s, outs - 1);
}

template <class T, bool kMax>
__global__ void PoolKernel(const T* x, T* y, PoolGeometry g) {
  TA_GPU_LOOP(i, g.n * g.oh * g.ow * g.c) {
    const int64_t ch = i % g.c;
    int64_t rest = i / g.c;
    const int64_t ow = rest % g.ow;
    rest /= g.ow;
    const int64_t oh = rest % g.oh, n = rest / g.oh;
    const Window w = WindowOf(g, oh, ow);
    const T* image = x + n * g.h * g.w * g.c + ch;
    T acc = kMax ? Lowest<T>() : T(0);
    for (int64_t r = w.r0; r < w.r1; ++r) {
      for (int64_t c = w.c0; c < w.c1; ++c) {
        const T v = image[(r * g.w + c) * g.c];
        if (kMax) acc = acc < v ? v : acc;
        else acc += v;
      }
    }
    y[i] = kMax ? acc : acc / T((w.r1 - w.r0) * (w.c1 - w.c0));
  }
}

// dx[n, h, w, ch]: the sum of dy over the windows whose argmax (first largest tap) it is.
template <class T>
__global__ void MaxPoolGradKernel(const T* x, const T* dy, T* dx, PoolGeometry g) {
  TA_GPU_LOOP(i, g.n * g.h * g.w * g.c) {
    const int64_t ch = i % g.c;
    int64_t rest = i / g.c;
    const int64_t col = rest % g.w;
    rest /= g.w;
    const int64_t row = rest % g.h, n = rest / g.h;
    int64_t oh0, oh1, ow0, ow1;
    OutputsHolding(row, g.pad_top, g.kh, g.sh, g.oh, &oh0, &oh1);
    OutputsHolding(col, g.pad_left, g.kw, g.sw, g.ow, &ow0, &ow1);
    const T* image = x + n * g.h * g.w * g.c + ch;
    T sum = T(0);
    for (int64_t oh = oh0; oh <= oh1; ++oh) {
      for (int64_t ow = ow0; ow <= ow1; ++ow) {
        const Window w = WindowOf(g, oh, ow);
        T best = image[(w.r0 * g.w + w.c0) * g.c];
        int64_t best_r = w.r0, best_c = w.c0;
        for (int64_t r = w.r0; r < w.r1; ++r) {
          for (int64_t c = w.c0; c < w.c1; ++c) {
            const T v = image[(r * g.w + c) * g.c];
            if (v > best) {
              best = v;
              best_r = r;
              best_c = c;
            }
          }
        }
        if (best_r == row && best_c == col) sum += dy[((n * g.oh + oh) * g.ow + ow) * g.c + ch];
      }
    }
    dx[i] = sum;
  }
}

// Windows that never overlap (stride >= window, the CNN's 2x2 pools): a thread per output
// element finds its window's argmax and writes its gradient there and zeros on the other
// taps. 32-bit indices (the launcher checks they fit): 64-bit division would dominate.
template <class T>
__global__ void MaxPoolGradDisjointKernel(const T* x, const T* dy, T* dx, PoolGeometry g, int total) {
  const int c = static_cast<int>(g.c), w = static_cast<int>(g.w), ow = static_cast<int>(g.ow);
  const int oh_count = static_cast<int>(g.oh);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += blockDim.x * gridDim.x) {
    const int ch = i % c;
    int rest = i / c;
    const int col = rest % ow;
    rest /= ow;
    const int oh = rest % oh_count, n = rest / oh_count;
    const int r0 = max(oh * static_cast<int>(g.sh) - static_cast<int>(g.pad_top), 0);
    const int r1 = min(oh * static_cast<int>(g.sh) - static_cast<int>(g.pad_top) + static_cast<int>(g.kh),
                       static_cast<int>(g.h));
    const int c0 = max(col * static_cast<int>(g.sw) - static_cast<int>(g.pad_left), 0);
    const int c1 = min(col * static_cast<int>(g.sw) - static_cast<int>(g.pad_left) + static_cast<int>(g.kw), w);
    if (r0 >= r1 || c0 >= c1) continue;
    const int64_t image = static_cast<int64_t>(n) * g.h * w * c + ch;
    const T* in = x + image;
    T* out = dx + image;
    T best = in[(r0 * w + c0) * c];
    int best_r = r0, best_c = c0;
    for (int r = r0; r < r1; ++r) {
      for (int cc = c0; cc < c1; ++cc) {
        const T v = in[(r * w + cc) * c];
        if (v > best) {
          best = v;
          best_r = r;
          best_c = cc;
        }
      }
    }
    const T grad = dy[i];
    for (int r = r0; r < r1; ++r) {
      for (int cc = c0; cc < c1; ++cc) out[(r * w + cc) * c] = (r == best_r && cc == best_c) ? grad : T(0);
    }
  }
}

// dx[n, h, w, ch]: the sum of dy / taps over the windows that hold it.
template <class T>
__global__ void AvgPoolGradKernel(const T* dy, T* dx, PoolGeometry g) {
  TA_GPU_LOOP(i, g.n * g.h * g.w * g.c) {
    const int64_t ch = i % g.c;
    int64_t rest = i / g.c;
    const int64_t col = rest % g.w;
    rest /= g.w;
    const int64_t row = rest % g.h, n = rest / g.h;
    int64_t oh0, oh1, ow0, ow1;
    OutputsHolding(row, g.pad_top, g.kh, g.sh, g.oh, &oh0, &oh1);
    OutputsHolding(col, g.pad_left, g.kw, g.sw, g.ow, &ow0, &ow1);
    T sum = T(0);
    for (int64_t oh = oh0; oh <= oh1; ++oh) {
      for (int64_t ow = ow0; ow <= ow1; ++ow) {
        const Window w = WindowOf(g, oh, ow);
        const T scale = T(1) / T((w.r1 - w.r0) * (w.c1 - w.c0));
        sum += dy[((n * g.oh + oh) * g.ow + ow) * g.c + ch] * scale;
      }
    }
    dx[i] = sum;
  }
}

}  // namespace

template <class T>
void LaunchPool(bool max, const T* x, T* y, const PoolGeometry& g, cudaStream_t stream) {
  const int64_t n = g.n * g.oh * g.ow * g.c;
  if (n == 0) return;
  if (max) PoolKernel<T, true><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(x, y, g);
  else PoolKernel<T, false><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(x, y, g);
}

template <class T>
void LaunchMaxPoolGrad(const T* x, const T* dy, T* dx, const PoolGeometry& g, cudaStream_t stream) {
  const int64_t n = g.n * g.h * g.w * g.c;
  if (n == 0) return;
  const int64_t outputs = g.n * g.oh * g.ow * g.c;
  if (PoolWindowsDisjoint(g) && n < (int64_t{1} << 30)) {
    // Elements no window reaches (past the last window, between windows) stay zero.
    const bool tiles = g.sh == g.kh && g.sw == g.kw && g.pad_top == 0 && g.pad_left == 0 && g.oh * g.sh == g.h &&
                       g.ow * g.sw == g.w;
    if (!tiles) cudaMemsetAsync(dx, 0, n * sizeof(T), stream);
    if (outputs > 0) {
      MaxPoolGradDisjointKernel<T><<<BlocksFor(outputs), kThreadsPerBlock, 0, stream>>>(x, dy, dx, g,
                                                                                        static_cast<int>(outputs));
    }
    return;
  }
  MaxPoolGradKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(x, dy, dx, g);
}

template <class T>
void LaunchAvgPoolGrad(const T* dy, T* dx, const PoolGeometry& g, cudaStream_t stream) {
  const int64_t n = g.n * g.h * g.w * g.c;
  if (n > 0) AvgPoolGradKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(dy, dx, g);
}

#define TA_INSTANTIATE(T)                                                                      \
  template void LaunchPool<T>(bool, const T*, T*, const PoolGeometry&, cudaStream_t);          \
  template void LaunchMaxPoolGrad<T>(const T*, const T*, T*, const PoolGeometry&, cudaStream_t); \
  template void LaunchAvgPoolGrad<T>(const T*, T*, const PoolGeometry&, cudaStream_t);
TA_INSTANTIATE(float)
TA_INSTANTIATE(double)

}  // namespace gpu
}  // namespace tensoract
