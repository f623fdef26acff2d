#!/usr/bin/env bash
# Installs everything tensoract builds and tests with, on a fresh Debian 12 machine.
# Safe to run twice: apt and pip skip what is already there, and `apt-get update` runs only
# when a Debian package is missing.
#
#   bootstrap/install-deps.sh            build deps, Fashion-MNIST, doxygen, tensorflow-cpu (the reference)
#   bootstrap/install-deps.sh --no-python  only Debian's packages (the main job needs no
#                                        PyPI package: bootstrap/run-main.sh)
#   bootstrap/install-deps.sh --debian   every Debian package, the tests' doxygen too, no PyPI
#   bootstrap/install-deps.sh --pypi     only PyPI's packages (after --debian: run-tests.sh
#                                        installs them while it builds)
#   bootstrap/install-deps.sh --peers    also the benchmark peers (PyPI torch: several GB;
#                                        onnxruntime, tf2onnx, openvino)
set -euo pipefail

want_debian=1       # Debian's packages
want_test_debian=1  # and those only the tests need
want_pypi=1         # PyPI's references
want_peers=0        # and the benchmark peers
for arg in "$@"; do
  case "$arg" in
    --peers) want_peers=1 ;;
    --no-python) want_test_debian=0; want_pypi=0 ;;
    --debian) want_pypi=0 ;;
    --pypi) want_debian=0 ;;
    *) echo "install-deps.sh: unknown option '$arg' (known: --peers, --no-python, --debian, --pypi)" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential g++ cmake ninja-build pkg-config ccache git
  libcaf-dev
  libprotobuf-dev protobuf-compiler
  libeigen3-dev
  libcapnp-dev capnproto
  catch2
  zlib1g-dev libdeflate-dev libpng-dev
  libre2-dev
  libdnnl-dev
  libssl-dev openssl
  rapidjson-dev libcpp-httplib-dev
  libgrpc++-dev
  dataset-fashion-mnist
  python3 python3-pip
  tmux
  iproute2
)
# Only the tests need these: the API reference's check (doxygen).
if [ "$want_test_debian" -eq 1 ]; then
  packages+=(doxygen)
fi

sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if [ "$want_debian" -eq 1 ]; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get update -q
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  else
    echo "install-deps: Debian packages already installed"
  fi
fi

if [ "$want_pypi" -eq 0 ]; then
  echo "install-deps: done (Debian's packages only)"
  exit 0
fi

# The Python peers. pip may refuse to touch a Debian-managed interpreter (PEP 668);
# --break-system-packages is then the documented way to install into it anyway.
py=$(command -v python3)
pip_install() {
  "$py" -m pip install -q "$@" 2>/dev/null || "$py" -m pip install -q --break-system-packages "$@"
}
# The installed version of the first of these distributions there is (fails where none is),
# read from pip's metadata: importing TensorFlow to ask costs ~7 s of a core.
dist_version() {
  "$py" - "$@" <<'PY'
import importlib.metadata as metadata, sys
for name in sys.argv[1:]:
    try:
        print(metadata.version(name))
        sys.exit(0)
    except metadata.PackageNotFoundError:
        pass
sys.exit(1)
PY
}
# TensorFlow 2.21: the compatibility tests state its behaviour (its refusals, its messages),
# so a newer release must not arrive unasked on a fresh machine.
tf_version=2.21
if tf_found=$(dist_version tensorflow-cpu tensorflow tensorflow-intel); then
  echo "install-deps: tensorflow $tf_found already installed"
  case "$tf_found" in
    "$tf_version".*) ;;
    *) echo "install-deps: WARNING: the compatibility tests expect TensorFlow $tf_version, not $tf_found" >&2 ;;
  esac
else
  echo "install-deps: installing tensorflow-cpu $tf_version from PyPI (the compatibility reference)"
  pip_install "tensorflow-cpu==$tf_version.*" "ml_dtypes==0.5.*" ||
    echo "install-deps: WARNING: tensorflow-cpu could not be installed; compatibility tests will say they are skipped" >&2
fi
# ml_dtypes (TensorFlow's extra numpy types) 0.5, installed with TensorFlow above or brought
# back to it here, within TensorFlow 2.21's range (>=0.5.1, <1) and onnx's (>=0.5.4):
# importing 0.7 registers its ufunc loops in ~1.3 s of a core, 0.5 in 0.1 s, and every test
# process that runs TensorFlow pays it (20 in the quick tier; the same tensors written).
if mld_found=$(dist_version ml_dtypes); then
  case "$mld_found" in
    0.5.*) ;;
    *) echo "install-deps: ml_dtypes $mld_found -> 0.5 (its import is 1.3 s shorter)"
       pip_install --no-deps "ml_dtypes==0.5.*" || echo "install-deps: WARNING: ml_dtypes 0.5 could not be installed" >&2 ;;
  esac
fi
# TensorFlow Serving's Python client (its gRPC stubs and messages) drives tensoract-serve's
# gRPC API in the tests. Without its dependencies: they are TensorFlow's, already here, and
# pip must not swap TensorFlow's version for them.
if dist_version tensorflow-serving-api >/dev/null; then
  echo "install-deps: tensorflow-serving-api already installed"
else
  echo "install-deps: installing tensorflow-serving-api from PyPI (TensorFlow Serving's gRPC client, in tests)"
  pip_install --no-deps "tensorflow-serving-api==$tf_version.*" ||
    echo "install-deps: WARNING: tensorflow-serving-api could not be installed; the gRPC serving checks will say they are skipped" >&2
fi
# TensorBoard reads our event files in the tests (its reader and its HTTP server).
if dist_version tensorboard >/dev/null; then
  echo "install-deps: tensorboard already installed"
else
  echo "install-deps: installing tensorboard from PyPI (reads the event files in tests)"
  pip_install tensorboard || echo "install-deps: WARNING: tensorboard could not be installed; its tests will say they are skipped" >&2
fi
if [ "$want_peers" -eq 1 ]; then
  if dist_version torch >/dev/null; then
    echo "install-deps: torch already installed"
  else
    echo "install-deps: installing torch from PyPI (benchmark peer)"
    pip_install torch
  fi
  # The model zoo's inference peers (tests/bench/run_model_zoo_bench.sh).
  if dist_version onnxruntime >/dev/null && dist_version tf2onnx >/dev/null && dist_version openvino >/dev/null; then
    echo "install-deps: onnxruntime, tf2onnx and openvino already installed"
  else
    echo "install-deps: installing onnxruntime, tf2onnx and openvino from PyPI (benchmark peers)"
    pip_install onnxruntime tf2onnx openvino
  fi
fi
echo "install-deps: done"
