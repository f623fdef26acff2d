# Sourced by the scripts that run binaries built here on the lent GPU machine
# (tests/gpu/run-on-device.sh, tests/bench/run_lab_on_device.sh). That machine has none of
# our Debian libraries, and a call carries at most 64 MiB.

# `pack_libs BUILD DEST BINARY...`: every library the binaries load except the C runtime
# and CUDA's (the GPU machine has its own), and the kernel libraries nothing links (the GPU
# device's and those loaded on demand, found beside libtensoract_kernels.so:
# kernels/kernel_libraries.h), into DEST/lib.tar.xz (30 MB of libraries compress to 7).
pack_libs() {
  local build=$1 dest=$2
  shift 2
  rm -rf "$dest/lib" "$dest/lib.tar.xz"
  mkdir -p "$dest/lib"
  for b in "$@"; do ldd "$b"; done | awk '/=> \// {print $3}' | sort -u |
    grep -v -E '/(libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+|ld-linux|libcuda|libcudart|libcublas|libcublasLt|libcudnn[a-z_]*)\.so' |
    xargs -I{} cp -L {} "$dest/lib/"
  cp -L "$build"/kernels/libtensoract_kernels_*.so "$dest/lib/" 2>/dev/null || true
  tar cf - -C "$dest" lib | xz -6 -T2 > "$dest/lib.tar.xz" && rm -rf "$dest/lib"
}

# `unpack_libs DEST [INTO]`: there, DEST/lib.tar.xz into INTO/lib (INTO: DEST by default;
# with Python: the machine may lack xz); the caller puts INTO/lib on LD_LIBRARY_PATH.
unpack_libs() {
  python3 - "$1" "${2:-$1}" <<'PY'
import os, sys, tarfile
dest, into = sys.argv[1], sys.argv[2]
if os.path.exists(os.path.join(dest, "lib.tar.xz")):
    with tarfile.open(os.path.join(dest, "lib.tar.xz")) as t:
        t.extractall(into)
PY
}
