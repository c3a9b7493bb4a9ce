#!/usr/bin/env bash
# Tests the arm64 build without arm64 hardware: checks the NEON kernel's
# hand-encoded words with binutils, cross-compiles the test binaries, runs
# them under qemu user-mode emulation (static Go binaries need no sysroot),
# again with -tags noasm for the kernel, and builds for darwin/arm64.
#
# Needs on Debian 12: apt-get install -y qemu-user binutils-aarch64-linux-gnu
# (scripts/install-deps.sh installs both). qemu says nothing about speed:
# benchmark on real arm64 hardware.
#
# The test binaries run with ASTRAL_TEST_EMULATED=1 (internal/testsize):
# tests that prove nothing arm64-specific skip, the rest take -short sizes.
# Each test binary has -test.timeout (QEMU_TEST_TIMEOUT, 25m) and each step
# a budget (STEP_BUDGET seconds, 1800): a hang fails loudly.
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
failed=0
summary=()

# step NAME CMD... runs a step, keeps going on failure, records the outcome.
step() {
  local name=$1 t0=$SECONDS
  shift
  echo "== $name"
  if "$@" >"$work/log" 2>&1; then
    summary+=("ok    $(printf '%-40s' "$name") $((SECONDS - t0))s $(counts)")
  else
    failed=1
    summary+=("FAIL  $(printf '%-40s' "$name") $((SECONDS - t0))s $(counts)")
    ((SECONDS - t0 < budget)) || echo "$name: over its budget of ${budget}s: killed" >>"$work/log"
    # Each failed test with the output -test.v streamed before its verdict,
    # else the end of the log.
    if grep -q -e '^--- FAIL' "$work/log"; then
      awk '/^=== RUN/ { if ($3 !~ /\//) buf = ""; next }
        /^=== / || /^ *--- (PASS|SKIP)/ { next }
        /^--- FAIL/ { printf "%s%s\n", buf, $0; buf = ""; next }
        { buf = buf $0 "\n" }' "$work/log" | head -n 80 || true
    else
      tail -n 40 "$work/log" || true
    fi
  fi
}

# counts summarises the top-level test results in the last step's log.
counts() {
  local p f s
  p=$(grep -c '^--- PASS' "$work/log" || true)
  f=$(grep -c '^--- FAIL' "$work/log" || true)
  s=$(grep -c '^--- SKIP' "$work/log" || true)
  if ((p + f + s)); then echo "(pass $p, fail $f, skip $s)"; fi
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
step "vet kernel for arm64" bounded env GOARCH=arm64 go vet ./kernel/

pkgs=(kernel flat hnsw astral internal/pool internal/fixture)
for pkg in "${pkgs[@]}"; do
  name=${pkg//\//_}
  step "build $pkg for linux/arm64" cross -o "$work/$name.test" "./$pkg"
done
step "build kernel -tags noasm" cross -tags noasm -o "$work/kernel_noasm.test" ./kernel

# The kernel runs in full (seconds under qemu); the rest take -short.
# TestNEONWordsDecode ran on the host above.
skip='^TestNEONWordsDecode$'
step "qemu: kernel (neon)" qemu_test kernel "$work/kernel.test" -test.skip "$skip"
step "qemu: kernel -tags noasm" qemu_test kernel "$work/kernel_noasm.test" -test.skip "$skip"
for pkg in "${pkgs[@]:1}"; do
  name=${pkg//\//_}
  step "qemu: $pkg -short" qemu_test "$pkg" "$work/$name.test" -test.short
done

step "build for darwin/arm64" bounded env GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 \
  go build ./kernel/ ./flat/ ./astral/ ./internal/...
step "build for darwin/arm64 -tags noasm" bounded env GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 \
  go build -tags noasm ./kernel/ ./flat/ ./astral/ ./internal/...

echo
echo "test-arm64 summary ($((SECONDS - start))s):"
printf '  %s\n' "${summary[@]}"
if ((failed)); then
  echo "test-arm64: FAILED"
  exit 1
fi
echo "test-arm64: all passed"
