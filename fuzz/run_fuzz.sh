#!/bin/bash
# Runs the libFuzzer targets of a fuzz build:
#   fuzz/run_fuzz.sh --seconds N [--parallel P] BUILD_DIR   (make fuzz)
#   fuzz/run_fuzz.sh --runs N [--parallel P] BUILD_DIR      (make fuzz-smoke, in make test)
# --seconds: each target fuzzes for N seconds on BUILD_DIR/corpus/<target>,
# kept and grown between runs, with a random seed. --runs: each target tries
# N inputs from the seeds alone with libFuzzer's seed 1, so that the short
# run of make test tries the same inputs every time. P targets run at once
# (default 2: one per core of the CI machine). The seeds are the shipped
# scenarios (fuzz/make_seeds.py). Prints each target's executions, corpus and
# coverage, and exits 1 when a target found a crash, an internal error, a
# hang (a unit slower than 10 s) or an out-of-memory (over 2 GB): its input
# is in BUILD_DIR/findings/<target>/ until the next run, the report in
# BUILD_DIR/logs/<target>.log.
set -u
usage() {
  echo "usage: $0 (--seconds N | --runs N) [--parallel P] BUILD_DIR" >&2
  exit 2
}
limit=() smoke= parallel=2 build_dir=
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) limit=(-max_total_time="$2"); shift 2 ;;
    --runs) limit=(-runs="$2" -seed=1) smoke=1; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    -*) usage ;;
    *) build_dir=$1; shift ;;
  esac
done
[ -n "$build_dir" ] && [ ${#limit[@]} -gt 0 ] || usage
root=$(cd "$(dirname "$0")/.." && pwd)
targets=(fuzz_scenario_loader fuzz_overrides fuzz_check fuzz_run fuzz_import_kubernetes fuzz_import_experiment fuzz_import_traces)

/usr/bin/python3 "$root/fuzz/make_seeds.py" "$build_dir/seeds" || exit 2
mkdir -p "$build_dir/logs"

run_target() {
  local target=$1 corpus=$build_dir/corpus/$target
  if [ -n "$smoke" ]; then
    corpus=$build_dir/smoke-corpus/$target  # starts from the seeds alone
    rm -rf "$corpus"
  fi
  rm -rf "$build_dir/findings/$target"  # only this run's findings
  mkdir -p "$corpus" "$build_dir/findings/$target"
  # The seeds go in as a second corpus directory: read, never written.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build_dir/fuzz/$target" "$corpus" "$build_dir/seeds/$target" "${limit[@]}" \
    -dict="$root/fuzz/scenario.dict" -timeout=10 -rss_limit_mb=2048 \
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
      "$(grep -m1 -E 'ERROR: |internal error|ALARM|out-of-memory' "$log")"
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
