#!/usr/bin/env bash
# Checks that a Linux libastral.so loads where a shipped game runs:
#   glibc   the highest GLIBC_x.y version the library needs (its version
#           needs, what the dynamic loader checks) is at most the floor the
#           Unreal plugin's README states on its "Linux glibc" row, and a
#           library needing less than 2.34 names libpthread.so.0 when it
#           calls pthread_create (it lives there before 2.34)
#   TLS     its PT_TLS block is at most 64 bytes (a library loaded late
#           takes it from glibc's small static-TLS surplus); whether the
#           block is static (DF_STATIC_TLS) is reported
# Any ELF machine (x86-64, AArch64): binutils' readelf reads them all.
# Usage: scripts/check-elf.sh LIB...
#        scripts/check-elf.sh --self-test   (a library over both limits must fail)
set -euo pipefail
cd "$(dirname "$0")/.."

readme=unreal/AstralPlugin/README.md
tls_max=64

floor=$(sed -nE 's/^\| Linux glibc \| ([0-9]+\.[0-9]+) or newer.*/\1/p' "$readme")
[ -n "$floor" ] || { echo "check-elf: no '| Linux glibc | X.Y or newer' row in $readme" >&2; exit 2; }

# version_le A B: A <= B for dotted versions.
version_le() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$1" ]; }

check() {
  local lib=$1 bad=0 machine highest tls flags syms
  # Captured, not piped into grep -q: an early exit would fail the pipe.
  syms=$(readelf --dyn-syms -W "$lib")
  machine=$(readelf -hW "$lib" | sed -nE 's/^ *Machine: *//p')
  highest=$(readelf -VW "$lib" | sed -nE 's/.*Name: GLIBC_([0-9.]+) .*/\1/p' | sort -V | tail -1)
  if [ -z "$highest" ]; then
    echo "check-elf: $lib: needs no GLIBC version (not a glibc library?)"
    return 1
  fi
  if version_le "$highest" "$floor"; then
    echo "ok    $lib ($machine): needs GLIBC_$highest, floor $floor ($readme)"
  else
    echo "FAIL  $lib ($machine): needs GLIBC_$highest, above the floor $floor ($readme); newest symbols:"
    grep -E "@GLIBC_$highest( |$)" <<<"$syms" | awk '{ print "        " $8 }' | head -10 || true
    bad=1
  fi
  if ! version_le 2.34 "$highest" && grep -q ' pthread_create@' <<<"$syms"; then
    if grep -q 'NEEDED.*\[libpthread\.so\.0\]' <<<"$(readelf -dW "$lib")"; then
      echo "ok    $lib: NEEDED libpthread.so.0 (pthread_create before glibc 2.34)"
    else
      echo "FAIL  $lib: calls pthread_create at a pre-2.34 version but does not name libpthread.so.0"
      bad=1
    fi
  fi
  # PT_TLS: Type Offset VirtAddr PhysAddr FileSiz MemSiz Flg Align.
  tls=$(readelf -lW "$lib" | awk '$1 == "TLS" { print $6 }')
  tls=$((${tls:-0}))
  flags=$(readelf -dW "$lib" | sed -nE 's/.*\(FLAGS\) *//p')
  if grep -qw STATIC_TLS <<<"$flags"; then flags="STATIC_TLS (static block)"; else flags="no STATIC_TLS"; fi
  if ((tls <= tls_max)); then
    echo "ok    $lib: TLS $tls bytes (at most $tls_max), $flags"
  else
    echo "FAIL  $lib: TLS $tls bytes, above $tls_max, $flags; its TLS symbols:"
    readelf -sW "$lib" | awk '$4 == "TLS" { print "        " $3 " bytes " $8 }' | head -10 || true
    bad=1
  fi
  return "$bad"
}

self_test() {
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  # A 1 KiB _Thread_local and pthread_create linked on this host: above
  # both limits wherever glibc is 2.34 or newer, as the library once was.
  cat >"$tmp/bad.c" <<'C'
#include <pthread.h>
static _Thread_local char buffer[1024];
static void *run(void *arg) { return arg; }
char *bad_buffer(void) { return buffer; }
int bad_start(pthread_t *t) { return pthread_create(t, 0, run, 0); }
C
  cc -shared -fPIC -O2 -ftls-model=initial-exec -o "$tmp/bad.so" "$tmp/bad.c" -lpthread
  local out
  if out=$(check "$tmp/bad.so"); then
    echo "$out"
    echo "check-elf: --self-test: a library with a 1 KiB TLS block passed"
    return 1
  fi
  echo "$out"
  grep -q '^FAIL .*TLS 1024 bytes' <<<"$out" || { echo "check-elf: --self-test: the TLS size was not caught"; return 1; }
  if ! version_le "$(ldd --version | sed -nE '1s/.* ([0-9]+\.[0-9]+)$/\1/p')" "$floor"; then
    grep -q '^FAIL .*above the floor' <<<"$out" || { echo "check-elf: --self-test: the glibc version was not caught"; return 1; }
  fi
  echo "check-elf: --self-test: a library over the limits fails as it should"
}

if [ "${1:-}" = --self-test ]; then
  self_test
  exit
fi
[ $# -gt 0 ] || { echo "usage: scripts/check-elf.sh LIB... | --self-test" >&2; exit 2; }
failed=0
for lib in "$@"; do
  check "$lib" || failed=1
done
exit "$failed"
