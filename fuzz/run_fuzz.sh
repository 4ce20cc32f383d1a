#!/bin/bash
# Runs the libFuzzer targets of a fuzz build (make fuzz, make fuzz-smoke):
#   fuzz/run_fuzz.sh BUILD_DIR SECONDS_PER_TARGET [PARALLEL]
# PARALLEL targets run at once (default 2: one per core of the CI machine),
# each for SECONDS_PER_TARGET, on BUILD_DIR/corpus/<target> (kept between
# runs, seeded from the shipped scenarios by fuzz/make_seeds.py). Prints
# each target's executions, corpus and coverage, and exits 1 when a target
# found a crash, a hang (a unit slower than 10 s) or an out-of-memory
# (over 2 GB): its input is in BUILD_DIR/findings/<target>/, the report in
# BUILD_DIR/logs/<target>.log.
set -u
build_dir=$1
seconds=$2
parallel=${3:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
targets=(fuzz_scenario_loader fuzz_overrides fuzz_check fuzz_run)

/usr/bin/python3 "$root/fuzz/make_seeds.py" "$build_dir/seeds" || exit 2
mkdir -p "$build_dir/logs"

run_target() {
  local target=$1
  mkdir -p "$build_dir/corpus/$target" "$build_dir/findings/$target"
  # The seeds go in as a second corpus directory: read, never written.
  # -detect_leaks: a leak per input would exhaust a long run.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build_dir/fuzz/$target" "$build_dir/corpus/$target" "$build_dir/seeds/$target" \
    -dict="$root/fuzz/scenario.dict" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build_dir/findings/$target/" \
    >"$build_dir/logs/$target.log" 2>&1
  echo $? >"$build_dir/logs/$target.status"
}

summary() {
  local target=$1 log="$build_dir/logs/$target.log"
  local status
  status=$(cat "$build_dir/logs/$target.status")
  # libFuzzer's last status line ("#N DONE cov: C ft: F corp: U/S ...") and final stats.
  local last execs per_second
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  per_second=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  local cov corp
  cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/\1 edges, \2 features/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\)\/\([0-9A-Za-z]*\).*/\1 inputs (\2)/p' <<<"$last")
  if [ "$status" = 0 ]; then
    printf '%-22s ok       %s execs (%s/s), corpus %s, coverage %s\n' "$target" "${execs:-?}" \
      "${per_second:-?}" "${corp:-?}" "${cov:-?}"
  else
    printf '%-22s FOUND    exit %s after %s execs: %s\n' "$target" "$status" "${execs:-?}" \
      "$(grep -m1 -E 'ERROR: |internal error|ALARM|out-of-memory|Test unit written' "$log")"
    ls "$build_dir/findings/$target" | sed "s|^|    $build_dir/findings/$target/|"
  fi
}

pids=()
for target in "${targets[@]}"; do
  run_target "$target" &
  pids+=($!)
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
done
wait
failed=0
for target in "${targets[@]}"; do
  summary "$target"
  [ "$(cat "$build_dir/logs/$target.status")" = 0 ] || failed=1
done
exit $failed
