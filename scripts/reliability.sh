#!/usr/bin/env bash
# Reliability checks (README: "Reliability and hostile input"): builds build-asan with clang
# (AddressSanitizer + UndefinedBehaviorSanitizer, the libFuzzer targets, and
# the calibration tool its CTest suite runs),
# runs the whole Catch2 suite under the sanitizers, then runs each fuzz target
# for FUZZ_SECONDS on the committed seed corpus. Fails on any test failure,
# sanitizer report or fuzz finding; a finding is saved under
# build-asan/fuzz-findings/ (commit it to tests/fuzz/regressions/<target>/).
#
# usage: scripts/reliability.sh   FUZZ_SECONDS=30 (0 skips fuzzing) JOBS=2 by default
set -uo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
BUILD=build-asan
TARGETS=(scenario hf_config catalog estimate_paths)

export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

if ! command -v clang++ >/dev/null 2>&1; then
  echo "reliability: clang++ not found (scripts/setup.sh installs clang and libclang-rt-14-dev)" >&2
  exit 1
fi

status=0
step_start=0
begin() { step_start=$(date +%s); echo "== $1"; }
took() { echo "   ($(( $(date +%s) - step_start )) s)"; }

begin "Build $BUILD (clang, ASan+UBSan, libFuzzer; -j$JOBS)"
cmake -S . -B "$BUILD" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS=-gline-tables-only -DCALIPER_SANITIZE=ON -DCALIPER_FUZZ=ON >/dev/null || exit 1
cmake --build "$BUILD" -j"$JOBS" --target caliper_tests caliper_calibrate "${TARGETS[@]/#/fuzz_}" || exit 1
took

begin "Catch2 under ASan+UBSan (CTest)"
ctest --test-dir "$BUILD" --output-on-failure -j"$JOBS" || status=1
took

# One fuzz target: new inputs go to a scratch corpus (the committed corpus is
# only read), a finding to fuzz-findings/. Writes <log>; returns libFuzzer's status.
fuzz_one() {
  local target=$1 log=$2 work="$BUILD/fuzz-work/$1"
  mkdir -p "$work" "$BUILD/fuzz-findings"
  "$BUILD/fuzz/fuzz_$target" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 -timeout=60 \
    -dict=tests/fuzz/json.dict -artifact_prefix="$BUILD/fuzz-findings/$target-" \
    "$work" "tests/fuzz/corpus/$target" >"$log" 2>&1
}

if [ "$FUZZ_SECONDS" -le 0 ]; then TARGETS=(); fi
begin "Fuzzing: ${#TARGETS[@]} targets x ${FUZZ_SECONDS} s, $JOBS at a time"
mkdir -p "$BUILD/fuzz-work"
for target in "${TARGETS[@]}"; do
  log="$BUILD/fuzz-work/$target.log"
  rm -f "$log.rc"
  ( fuzz_one "$target" "$log"; echo $? >"$log.rc" ) &
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
done
wait
printf '   %-16s %8s %12s  %s\n' target seconds inputs result
for target in "${TARGETS[@]}"; do
  log="$BUILD/fuzz-work/$target.log"
  rc=$(cat "$log.rc" 2>/dev/null || echo 1)
  units=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ "$rc" -eq 0 ]; then
    result=ok
  else
    status=1
    artifact=$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)
    result="FINDING (exit $rc) ${artifact:-see $log}"
    grep -m1 -E 'caliper fuzz finding|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' "$log" | sed 's/^/      /'
  fi
  printf '   %-16s %8s %12s  %s\n' "$target" "$FUZZ_SECONDS" "${units:-?}" "$result"
done
took

if [ "$status" -ne 0 ]; then
  echo "reliability: FAILED (see above)" >&2
else
  echo "reliability: all checks passed"
fi
exit "$status"
