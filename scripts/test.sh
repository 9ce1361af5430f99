#!/usr/bin/env bash
# Installs, builds, and runs every test: Catch2 through CTest, the WASM module
# under Node (checked build, native/WASM parity), the page's logic under Node,
# the catalog schemas, the page in headless Chromium over http:// and file://,
# and the reliability checks (Catch2 under ASan/UBSan, bounded fuzzing).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
started=$(date +%s)

scripts/setup.sh
scripts/build.sh

echo "== Catch2 (CTest)"
ctest --test-dir build --output-on-failure -j"$JOBS"

echo "== Accuracy on the public validation rows (caliper validate)"
build/bin/caliper validate validation/public.jsonl | tail -n 1

echo "== Node: WASM module, command line, catalog schemas, page logic"
node scripts/run-node-tests.js tests/node tests/js

echo "== Headless Chromium: the page over http:// and file://"
node scripts/run-node-tests.js tests/browser

echo "== Reliability: sanitizers and fuzzing"
scripts/reliability.sh

echo "== All tests passed in $(( $(date +%s) - started )) s"
