#!/usr/bin/env bash
# The Debian package, as a user would take it: `cpack -G DEB` makes the .deb from the build,
# dpkg installs it under /usr, examples/standalone is configured (find_package finds
# tensoract with no prefix given), built and run, the tools run from /usr/bin, and dpkg
# removes it all again. Skipped (77) without root or dpkg, or where a tensoract package is
# installed already (it is not ours to replace).
#   deb_test.sh BUILD_DIR APP_SOURCE WORK_DIR
set -euo pipefail
build_dir=$1 app_src=$2 work=$3
if [ "$(id -u)" -ne 0 ]; then echo "skipped: installing a .deb needs root"; exit 77; fi
if ! command -v dpkg >/dev/null || ! command -v cpack >/dev/null; then echo "skipped: no dpkg or cpack"; exit 77; fi
if dpkg-query -W -f='${Status}' tensoract 2>/dev/null | grep -q installed; then
  echo "skipped: a tensoract package is installed already; this test does not replace it"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
(cd "$work" && cpack -G DEB --config "$build_dir/CPackConfig.cmake" > cpack.log 2>&1) || { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/tensoract_*.deb)
echo "package: $(basename "$deb"), $(du -h "$deb" | cut -f1)"
dpkg-deb --field "$deb" Depends
trap 'dpkg --purge tensoract > /dev/null 2>&1 || true' EXIT
# Its dependencies are Debian's packages that bootstrap/install-deps.sh installed: dpkg
# fails here naming any that is missing.
dpkg -i "$deb" > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; exit 1; }
test -f /usr/lib/cmake/tensoract/tensoractConfig.cmake
test -f /usr/include/tensoract/client/session.h
for tool in tensoract-node tensoract-run tensoract-serve tensoract-inspect tensoract-observe; do
  test -x "/usr/bin/$tool" || { echo "missing /usr/bin/$tool"; exit 1; }
done
# A tool loads its libraries from /usr/lib: --help answers without a missing library.
/usr/bin/tensoract-node --help > "$work/node-help.txt" 2>&1 || true
if grep -q "error while loading shared libraries" "$work/node-help.txt"; then cat "$work/node-help.txt"; exit 1; fi
grep -q -- "--cluster" "$work/node-help.txt" || { cat "$work/node-help.txt"; exit 1; }
cmake -S "$app_src" -B "$work/app" > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
grep -q "/usr/lib/cmake/tensoract" "$work/app/CMakeCache.txt" || { echo "find_package did not find /usr's tensoract"; exit 1; }
cmake --build "$work/app" -j2 > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"$work/app/standalone"
dpkg --purge tensoract > "$work/purge.log"
trap - EXIT
if [ -e /usr/bin/tensoract-node ] || [ -e /usr/lib/cmake/tensoract ]; then echo "dpkg --purge left files behind"; exit 1; fi
echo "deb_test: installed, used and removed"
