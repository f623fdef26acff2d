#!/usr/bin/env bash
# The API reference stays complete: Doxygen over client/ and graph/builder/ (the Doxyfile
# cmake/ApiDocs.cmake writes) prints no warning, so a public declaration added without its
# `///` comment fails here. Exit 77 (skipped) without doxygen.
#   api_docs_test.sh DOXYFILE OUTPUT_DIR
set -euo pipefail
doxyfile=$1
out=$2
if ! command -v doxygen >/dev/null; then
  echo "api_docs: SKIPPED: doxygen is not installed (apt-get install doxygen)"
  exit 77
fi
mkdir -p "$out"
rm -f "$out/warnings.txt"
doxygen "$doxyfile" >/dev/null
if [ ! -f "$out/warnings.txt" ]; then
  echo "api_docs: doxygen wrote no warnings file at $out/warnings.txt"
  exit 1
fi
if [ -s "$out/warnings.txt" ]; then
  echo "api_docs: $(wc -l < "$out/warnings.txt") Doxygen warnings (document these declarations with ///):"
  head -50 "$out/warnings.txt"
  exit 1
fi
[ -f "$out/html/index.html" ] || { echo "api_docs: no $out/html/index.html"; exit 1; }
echo "api_docs: no warnings; reference at $out/html/index.html"
