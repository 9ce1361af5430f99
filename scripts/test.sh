#!/usr/bin/env bash
# Installs, builds, and runs every test: Catch2 through CTest, the WASM module
# under Node (checked build, native/WASM parity), the page's logic under Node,
# the catalog schemas, and the page in headless Chromium over http:// and file://.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}

scripts/setup.sh
scripts/build.sh

echo "== Catch2 (CTest)"
ctest --test-dir build --output-on-failure -j"$JOBS"

echo "== Node: WASM module, catalog schemas, page logic"
node scripts/run-node-tests.js tests/node tests/js

echo "== Headless Chromium: the page over http:// and file://"
node scripts/run-node-tests.js tests/browser
