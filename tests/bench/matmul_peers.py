"""The best BLAS here for an n x n float32 matmul: PyTorch (MKL/oneDNN) and NumPy.

  python3 matmul_peers.py --threads N [sizes...]
  python3 matmul_peers.py --device gpu [sizes...]   (PyTorch's torch.mm on CUDA, fp32 without
                                                     TF32: gpu_matmul's chain of 20 products)
"""
import argparse
import os
import time

p = argparse.ArgumentParser()
p.add_argument("--threads", type=int, default=1)
p.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
p.add_argument("sizes", type=int, nargs="*", default=None)
args = p.parse_args()
if args.device == "gpu":
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    for n in args.sizes or [1024, 2048, 4096, 8192]:
        g = torch.Generator(device="cuda").manual_seed(1)
        x = torch.randn(n, n, device="cuda", generator=g)
        b = torch.randn(n, n, device="cuda", generator=g) / n ** 0.5

        def chain():
            y = x
            for _ in range(20):
                y = torch.mm(y, b)
            return y.sum().item()
        chain()
        chain()
        reps = 20 if 2.0 * n ** 3 * 20 < 1e12 else 5
        start = time.perf_counter()
        for _ in range(reps):
            chain()
        secs = time.perf_counter() - start
        print(f"pytorch {torch.__version__} gpu matmul n={n}: {2.0 * n ** 3 * 20 * reps / secs / 1e12:.1f} TFLOP/s "
              f"({torch.cuda.get_device_name()})")
    raise SystemExit(0)
args.sizes = args.sizes or [256, 512, 1024, 2048]
for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[var] = str(args.threads)
import numpy as np


def rate(fn, n):
    fn()
    reps = 200 if n <= 512 else (40 if n <= 1024 else 10)
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    return 2.0 * n ** 3 * reps / (time.perf_counter() - start) / 1e9


for n in args.sizes:
    a = np.random.default_rng(1).standard_normal((n, n), dtype=np.float32)
    b = np.random.default_rng(2).standard_normal((n, n), dtype=np.float32)
    out = np.empty((n, n), np.float32)
    print(f"numpy {np.__version__} matmul n={n} threads {args.threads}: {rate(lambda: np.matmul(a, b, out=out), n):.1f} GFLOP/s")
    try:
        import torch
        torch.set_num_threads(args.threads)
        ta, tb, tout = torch.from_numpy(a), torch.from_numpy(b), torch.empty(n, n)
        print(f"pytorch {torch.__version__} matmul n={n} threads {args.threads}: "
              f"{rate(lambda: torch.mm(ta, tb, out=tout), n):.1f} GFLOP/s")
    except ImportError:
        print("pytorch: not installed (bootstrap/install-deps.sh --peers)")
