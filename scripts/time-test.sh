#!/usr/bin/env bash
# Times `make test` on this machine twice: as it is, then with one core
# kept busy by a hog (stress-ng --cpu 1 where installed, else a shell busy
# loop), and prints both wall times. Each run's log goes to build/time-test/.
# Each run starts from an empty build/ (as a fresh clone does) but a warm Go
# build cache (GOCACHE is shared with whatever else runs as this user).
# The target (issue 19): at most 12 minutes idle on 2 cores, and a pass
# with one core busy. Run it on an otherwise idle machine.
#   scripts/time-test.sh [MAKE TARGET...]   (default: test)
#   WARM_UP=0 skips the warm-up (make deps build lib) before the timed runs.
set -uo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
((${#targets[@]})) || targets=(test)
out=build/time-test
mkdir -p "$out"
hog_pid=

stop_hog() {
  if [ -n "$hog_pid" ]; then
    kill -TERM -- "-$hog_pid" 2>/dev/null
    wait "$hog_pid" 2>/dev/null
    hog_pid=
  fi
}
trap 'stop_hog; exit 130' INT TERM

# run NAME: make TARGETS into $out/NAME.log; prints and records the result.
declare -A wall rc
run() {
  local name=$1 t0
  find build -mindepth 1 -maxdepth 1 ! -name time-test -exec rm -rf {} +
  t0=$SECONDS
  echo "time-test: make ${targets[*]} ($name), log $out/$name.log"
  make "${targets[@]}" >"$out/$name.log" 2>&1
  rc[$name]=$?
  wall[$name]=$((SECONDS - t0))
  echo "time-test: $name: exit ${rc[$name]} after ${wall[$name]} s"
}

# The first run also fills the Go build cache and installs what make deps
# installs, so the timed runs do not pay for either.
if [ "${WARM_UP:-1}" != 0 ]; then
  echo "time-test: warming up (make deps build lib)"
  make deps build lib >"$out/warm-up.log" 2>&1 || { echo "time-test: warm-up failed, see $out/warm-up.log"; exit 1; }
fi

run idle

# One core busy: a process group of its own, so it ends with this script.
set -m
if command -v stress-ng >/dev/null 2>&1; then
  hog="stress-ng --cpu 1 --cpu-method loop"
  stress-ng --cpu 1 --cpu-method loop --quiet &
else
  hog="a bash busy loop (while :; do :; done)"
  bash -c 'while :; do :; done' &
fi
hog_pid=$!
set +m
run one-core-busy
stop_hog

echo
echo "time-test summary ($(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
for name in idle one-core-busy; do
  printf '  %-14s %5d s (%d min %02d s)  exit %d\n' "$name" "${wall[$name]}" $((wall[$name] / 60)) $((wall[$name] % 60)) "${rc[$name]}"
done
echo "  load: $hog"
((rc[idle] == 0 && rc[one-core-busy] == 0))
