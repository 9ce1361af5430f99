#!/usr/bin/env bash
# Installs what the build and tests need, once: Debian packages through apt,
# npm packages from the committed package-lock.json. A second run installs
# nothing. Stops with the name of a package that cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(cmake g++ make emscripten nlohmann-json3-dev catch2 chromium clang libclang-rt-14-dev nodejs gzip zopfli xz-utils)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  if [ "$pkg" = nodejs ] && command -v node >/dev/null 2>&1; then continue; fi
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq || { echo "setup: apt-get update failed" >&2; exit 1; }
  for pkg in "${missing[@]}"; do
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$pkg" >/dev/null \
      || { echo "setup: could not install the Debian package '$pkg'" >&2; exit 1; }
  done
fi

# npm packages: reinstall only when the lock file changed since the last install.
stamp=node_modules/.caliper-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  echo "setup: installing npm packages from package-lock.json"
  npm ci --no-audit --no-fund --loglevel=error || { echo "setup: npm ci failed (package-lock.json)" >&2; exit 1; }
  cp package-lock.json "$stamp"
fi
