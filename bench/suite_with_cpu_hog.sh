#!/usr/bin/env bash
# The suite's stability under load: runs ./scripts/test twice in a row while one busy-looping
# process (a CPU hog) competes for the cores, and prints each run's wall time and result.
#   nice -n 10 bench/suite_with_cpu_hog.sh [pytest arguments...]   (the hog inherits the nice)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python3 -c 'while True: pass' &
HOG=$!
trap 'kill "$HOG" 2>/dev/null' EXIT
for round in 1 2; do
  start=$(date +%s)
  "$ROOT/scripts/test" -q -p no:cacheprovider "$@" > "/tmp/outrider-suite-hog-$round.log" 2>&1
  code=$?
  printf 'round %d: exit %d, %d s, load %s; %s\n' "$round" "$code" "$(( $(date +%s) - start ))" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$(tail -1 "/tmp/outrider-suite-hog-$round.log")"
done
