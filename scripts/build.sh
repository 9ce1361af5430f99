#!/usr/bin/env bash
# Builds everything: the native CLI and tests (build/), the WASM engine
# (build-wasm/), and the page (dist/). Incremental: reruns rebuild only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$JOBS"

# Emscripten 3.1.6 runs its JS tools under Node and needs Debian's acorn.
export NODE_PATH=/usr/share/nodejs
if [ ! -f build-wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release -DCALIPER_TESTS=OFF >/dev/null
fi
cmake --build build-wasm -j"$JOBS"

node scripts/build-web.js --engine build-wasm/wasm/caliper-engine.js --out dist
