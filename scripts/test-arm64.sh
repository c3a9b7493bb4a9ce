#!/usr/bin/env bash
# Tests the arm64 build without arm64 hardware: checks the NEON kernel's
# hand-encoded words with binutils, type-checks every package for arm64,
# runs the kernel's tests and the engine's golden answers under qemu
# user-mode emulation (static Go binaries need no sysroot), with NEON and
# with -tags noasm, and builds for darwin/arm64. QEMU_ALL=1 also runs the
# engine packages' -short tests under qemu (make test-long).
#
# Needs on Debian 12: apt-get install -y qemu-user binutils-aarch64-linux-gnu
# (scripts/install-deps.sh installs both). qemu says nothing about speed:
# benchmark on real arm64 hardware.
#
# The test binaries run with ASTRAL_TEST_EMULATED=1 (internal/testsize):
# tests that prove nothing arm64-specific skip, the rest take -short sizes.
# Each test binary has -test.timeout (QEMU_TEST_TIMEOUT, 25m) and each step
# a budget (STEP_BUDGET seconds, 1800): a hang fails loudly. The qemu runs
# go side by side, QEMU_JOBS (the number of CPUs) at a time, each with its
# own log; the summary lists them in a fixed order.
set -euo pipefail

cd "$(dirname "$0")/.."

QEMU=${QEMU:-$(command -v qemu-aarch64 || command -v qemu-aarch64-static || true)}
missing=()
command -v go >/dev/null || missing+=("go (Go 1.26)")
[ -n "$QEMU" ] || missing+=("qemu-aarch64 (apt-get install qemu-user)")
command -v aarch64-linux-gnu-objdump >/dev/null || missing+=("aarch64-linux-gnu-objdump (apt-get install binutils-aarch64-linux-gnu)")
if ((${#missing[@]})); then
  printf 'test-arm64: missing %s\n' "${missing[@]}" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$SECONDS
test_timeout=${QEMU_TEST_TIMEOUT:-25m}
budget=${STEP_BUDGET:-1800}
# qemu-user runs a test binary on about one core: the binaries run side by
# side, this many at a time.
qemu_jobs=${QEMU_JOBS:-$(nproc 2>/dev/null || echo 2)}
failed=0
summary=()
nsteps=0

# report NAME LOG RC SECONDS records a finished step and, if it failed,
# prints each failed test with the output -test.v streamed before its
# verdict, else the end of its log.
report() {
  local name=$1 log=$2 rc=$3 secs=$4 verdict=ok
  if ((rc != 0)); then
    failed=1
    verdict=FAIL
    echo "== $name: FAILED"
    ((rc != 124 && rc != 137)) || echo "$name: over its budget of ${budget}s: killed" >>"$log"
    if grep -q -e '^--- FAIL' "$log"; then
      awk '/^=== RUN/ { if ($3 !~ /\//) buf = ""; next }
        /^=== / || /^ *--- (PASS|SKIP)/ { next }
        /^--- FAIL/ { printf "%s%s\n", buf, $0; buf = ""; next }
        { buf = buf $0 "\n" }' "$log" | head -n 80 || true
    else
      tail -n 40 "$log" || true
    fi
  fi
  summary+=("$(printf '%-5s %-40s %4ss %s' "$verdict" "$name" "$secs" "$(counts "$log")")")
}

# counts LOG summarises the top-level test results in a step's log.
counts() {
  local p f s
  p=$(grep -c '^--- PASS' "$1" || true)
  f=$(grep -c '^--- FAIL' "$1" || true)
  s=$(grep -c '^--- SKIP' "$1" || true)
  if ((p + f + s)); then echo "(pass $p, fail $f, skip $s)"; fi
}

# step NAME CMD... runs a step now and keeps going on failure.
step() {
  local name=$1 t0=$SECONDS rc=0 log
  shift
  nsteps=$((nsteps + 1))
  log=$work/$nsteps.log
  echo "== $name"
  "$@" >"$log" 2>&1 || rc=$?
  report "$name" "$log" "$rc" $((SECONDS - t0))
}

# bg_step NAME CMD... starts a step in the background once fewer than $qemu_jobs
# run; bg_wait waits for them all and records them in the order started.
bg_names=() bg_pids=() bg_logs=() bg_starts=()
bg_step() {
  local name=$1
  shift
  while (($(jobs -rp | wc -l) >= qemu_jobs)); do wait -n || true; done
  nsteps=$((nsteps + 1))
  echo "== $name (started)"
  bg_names+=("$name") bg_logs+=("$work/$nsteps.log") bg_starts+=($SECONDS)
  (
    t0=$SECONDS
    rc=0
    "$@" >"$work/$nsteps.log" 2>&1 || rc=$?
    echo "$rc $((SECONDS - t0))" >"$work/$nsteps.done"
  ) &
  bg_pids+=($!)
}
bg_wait() {
  local i rc secs
  wait "${bg_pids[@]}" || true
  for i in "${!bg_names[@]}"; do
    read -r rc secs <"${bg_logs[$i]%.log}.done" || { rc=1 secs=$((SECONDS - bg_starts[i])); }
    report "${bg_names[$i]}" "${bg_logs[$i]}" "$rc" "$secs"
  done
  bg_names=() bg_pids=() bg_logs=() bg_starts=()
}

# bounded CMD... runs CMD within the step budget; timeout signals its whole
# process group (qemu, go and what they started).
bounded() { timeout -k 10 "$budget" "$@"; }

# qemu_test PKG BIN ARGS... runs a test binary in its package directory, as
# go test does, so testdata/ is found.
qemu_test() {
  local pkg=$1 bin=$2
  shift 2
  (cd "$pkg" && ASTRAL_TEST_EMULATED=1 bounded "$QEMU" "$bin" -test.v -test.count=1 -test.timeout="$test_timeout" "$@")
}

cross() { GOOS=linux GOARCH=arm64 CGO_ENABLED=0 bounded go test -c "$@"; }

# The WORD encodings, checked on this host: the qemu run below proves they
# compute the right scores, this proves they are the instructions named.
step "host: NEON words decode (objdump)" bounded go test -count=1 -timeout 5m -v -run '^TestNEONWordsDecode$' ./kernel/

# What only arm64 can show is its arithmetic: the kernels run in full (NEON
# and pure Go, against the pure-Go reference and the golden scores), and
# astral's TestGoldenAnswers checks the ids and score bits of every
# storage, index kind and metric, plain, filtered and ranked, against
# those the amd64 build wrote down, with both kernel sets: Go may fuse a
# multiply and an add on arm64, which would change them. fixture checks
# its generators' bits. The engine's other tests are the same Go code the
# native runs prove, and qemu-user keeps the x86 host's memory order, so
# its concurrency tests would show nothing of arm64's: every package is
# type-checked for arm64 (vet), and runs natively. A binary that failed to
# build fails its build step; its run is not started.
skip='^TestNEONWordsDecode$'
golden='^TestGoldenAnswers$'

step "vet every package for linux/arm64" bounded env GOOS=linux GOARCH=arm64 CGO_ENABLED=0 \
  go vet $(go list ./... | grep -v '/capi$')
step "build astral for linux/arm64" cross -o "$work/astral.test" ./astral
step "build astral -tags noasm" cross -tags noasm -o "$work/astral_noasm.test" ./astral
step "build kernel for linux/arm64" cross -o "$work/kernel.test" ./kernel
step "build kernel -tags noasm" cross -tags noasm -o "$work/kernel_noasm.test" ./kernel
step "build internal/fixture for linux/arm64" cross -o "$work/fixture.test" ./internal/fixture
step "build for darwin/arm64" bounded env GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 \
  go build ./kernel/ ./flat/ ./hnsw/ ./ivf/ ./astral/ ./internal/...
step "build for darwin/arm64 -tags noasm" bounded env GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 \
  go build -tags noasm ./kernel/ ./flat/ ./hnsw/ ./ivf/ ./astral/ ./internal/...

# qemu_run NAME PKG BIN ARGS... starts a qemu run (bg_step) if BIN was built.
qemu_run() {
  local name=$1 pkg=$2 bin=$3
  shift 3
  [ -x "$bin" ] || return 0
  bg_step "$name" qemu_test "$pkg" "$bin" "$@"
}
qemu_run "qemu: kernel (neon)" kernel "$work/kernel.test" -test.skip "$skip"
qemu_run "qemu: kernel -tags noasm" kernel "$work/kernel_noasm.test" -test.skip "$skip"
qemu_run "qemu: astral golden answers (neon)" astral "$work/astral.test" -test.run "$golden"
qemu_run "qemu: astral golden answers -tags noasm" astral "$work/astral_noasm.test" -test.run "$golden"
qemu_run "qemu: internal/fixture -short" internal/fixture "$work/fixture.test" -test.short
# QEMU_ALL=1 (make test-long): the engine packages' whole -short runs too.
if [ "${QEMU_ALL:-0}" = 1 ]; then
  for pkg in flat hnsw ivf internal/pool; do
    step "build $pkg for linux/arm64" cross -o "$work/${pkg//\//_}.test" "./$pkg"
    qemu_run "qemu: $pkg -short" "$pkg" "$work/${pkg//\//_}.test" -test.short
  done
  qemu_run "qemu: astral -short" astral "$work/astral.test" -test.short -test.skip "$golden"
fi
bg_wait

echo
echo "test-arm64 summary ($((SECONDS - start))s):"
printf '  %s\n' "${summary[@]}"
if ((failed)); then
  echo "test-arm64: FAILED"
  exit 1
fi
echo "test-arm64: all passed"
