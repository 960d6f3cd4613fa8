#!/usr/bin/env bash
# The long fuzz run (crates/rvmon-fuzz): every target, or those named, CASES inputs each
# (default 1000000), in release mode, each target in a process of its own under
# `ulimit -v 2000000` (2 GB of address space: an allocation the input makes too large aborts).
#
#   bench/fuzz.sh [CASES] [SEED] [TARGET...]
#   RVMON_FUZZ_BIN=path/to/harness bench/fuzz.sh ...
#
# A process that dies (a stack overflow, a refused allocation) or that the harness stops (an
# input running longer than RVMON_FUZZ_HANG_SECS, 10 by default, exits with status 3) is
# restarted with the next seed for the inputs still to run; the input it was running is kept
# in target/fuzz/aborts/TARGET/ or target/fuzz/hangs/TARGET/. Panics are shrunk by proptest
# and kept in target/fuzz/crashes/TARGET/. The last lines are a table: target, inputs,
# crashes (panics), hangs, aborts; it is also appended to target/fuzz/summary.txt (so that
# runs over different targets may go side by side).
# A crash found is kept as a regression input in crates/rvmon-fuzz/regressions/fixed/TARGET/
# once fixed (or pending/ until then).
set -uo pipefail
cd "$(dirname "$0")/.."

cases=${1:-1000000}
seed=${2:-1}
shift $(( $# < 2 ? $# : 2 ))
out=target/fuzz
mkdir -p "$out"

# RVMON_FUZZ_BIN names an already built harness (a copy of it), so that the tree may change
# while a long run goes on.
bin=${RVMON_FUZZ_BIN:-}
if [ -z "$bin" ]; then
  cargo test --release -p rvmon-fuzz --test fuzz --no-run >/dev/null 2>&1 ||
    cargo test --release -p rvmon-fuzz --test fuzz --no-run
  bin=$(cargo test --release -p rvmon-fuzz --test fuzz --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
fi
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <("$bin" --list --ignored 2>/dev/null | sed -n 's/^long::\(.*\): test$/\1/p')
fi

summary="$out/summary.txt"
echo "# $(date -u +%FT%TZ) cases $cases seed $seed" >>"$summary"
printf '%-16s %10s %8s %6s %7s %9s\n' target inputs crashes hangs aborts seconds | tee -a "$summary"
for t in "${targets[@]}"; do
  left=$cases inputs=0 crashes=0 hangs=0 aborts=0 s=$seed start=$SECONDS
  while [ "$left" -gt 0 ]; do
    rm -f "$out/current/$t" "$out/current/$t.inputs"
    log="$out/$t.$s.log"
    (
      ulimit -v 2000000
      RVMON_FUZZ_CASES=$left RVMON_FUZZ_SEED=$s RVMON_FUZZ_TRACK=1 RVMON_FUZZ_OUT=$out \
        "$bin" --ignored --exact "long::$t" --nocapture --test-threads 1
    ) >"$log" 2>&1
    status=$?
    line=$(grep -o "fuzz $t: [0-9]* inputs.*" "$log" | tail -1)
    if [ -n "$line" ]; then
      # The run ended: its own counts (a failed test, status 101, is one with crashes).
      done_now=$(echo "$line" | sed 's/^fuzz [^:]*: \([0-9]*\) inputs.*/\1/')
      crashes=$((crashes + $(echo "$line" | sed 's/.* \([0-9]*\) crashes.*/\1/')))
      hangs=$((hangs + $(echo "$line" | sed 's/.* \([0-9]*\) hangs.*/\1/')))
      inputs=$((inputs + done_now))
      left=0
    else
      done_now=$(cat "$out/current/$t.inputs" 2>/dev/null || echo 0)
      inputs=$((inputs + done_now))
      if [ "$status" -eq 3 ]; then
        hangs=$((hangs + 1))
      else
        aborts=$((aborts + 1))
        if [ -f "$out/current/$t" ]; then
          mkdir -p "$out/aborts/$t"
          cp "$out/current/$t" "$out/aborts/$t/$(sha1sum <"$out/current/$t" | cut -c1-16)"
        fi
        echo "fuzz $t: abort (status $status), see $log" >&2
      fi
      # Resume with fresh inputs for the rest; at least one input ran (the one that ended it).
      left=$((left - (done_now > 0 ? done_now : 1)))
      s=$((s + 1000))
    fi
  done
  printf '%-16s %10d %8d %6d %7d %9d\n' "$t" "$inputs" "$crashes" "$hangs" "$aborts" \
    $((SECONDS - start)) | tee -a "$summary"
done
