#!/usr/bin/env bash
# Installs what is missing, builds everything, and serves the page.
# usage: scripts/run.sh [PORT]   (default 8080)
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${1:-${PORT:-8080}}
scripts/setup.sh
scripts/build.sh
echo
echo "Caliper is at      http://127.0.0.1:${PORT}/"
echo "Single-file page:  $(pwd)/dist/caliper.html  (open it from disk; works offline)"
exec node scripts/serve.js dist "$PORT"
