#!/usr/bin/env bash
# Builds libastral, the C ABI (capi/), with the Go toolchain:
#   build/libastral.so      c-shared, SONAME libastral.so.<major> (+ that symlink)
#   build/libastral.a       c-archive, with no global symbol but the header's
#                           functions (scripts/localize-archive.sh)
#   build/include/          astral.h, astral.hpp (the hand-written headers)
#   build/cgo/              cgo's generated headers: for the export-drift check only
#   build/debug/            the test build (-tags astral_debug): libastral.so,
#                           libastral.a and cgo/ with the ASTRAL_EXPERIMENTAL
#                           exports the C tests and recall_p50 use; never shipped
#   build/windows/astral.dll  cross-built with mingw-w64, with libastral.dll.a;
#                           libgcc and winpthread linked in, so it needs only
#                           system DLLs (skipped, with a message, when
#                           mingw-w64 is absent)
# Usage: scripts/build-lib.sh [OUTDIR]   (default build)
# Nothing is rebuilt when OUTDIR/.build-lib.stamp is newer than every source
# the library is built from and records the same Go toolchain and mingw-w64
# (make test's scripts call this several times); BUILD_LIB_FORCE=1 rebuilds.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-build}
mkdir -p "$out"
out=$(cd "$out" && pwd)
go=${GO:-go}
command -v "$go" >/dev/null 2>&1 || go=/usr/local/go/bin/go

major=$(sed -n 's/^#define ASTRAL_VERSION_MAJOR \([0-9]*\)$/\1/p' include/astral.h)
[ -n "$major" ] || { echo "build-lib: no ASTRAL_VERSION_MAJOR in include/astral.h" >&2; exit 1; }
soname=libastral.so.$major

mingw=${MINGW_CC:-x86_64-w64-mingw32-gcc}
have_mingw=no
command -v "$mingw" >/dev/null 2>&1 && have_mingw=yes

# The stamp names what the outputs were built with; any source newer than
# it (the library's Go, assembly and C, go.mod/go.sum, the header, these
# scripts) means a rebuild. Tests, examples, cmd/ and _gen are not in it.
stamp=$out/.build-lib.stamp
stamp_says="$("$go" version); mingw=$have_mingw"
if [ "${BUILD_LIB_FORCE:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_says" ] &&
  [ -f "$out/libastral.so" ] && [ -f "$out/libastral.a" ] && [ -f "$out/debug/libastral.so" ] &&
  [ -f "$out/debug/libastral.a" ] && { [ $have_mingw = no ] || [ -f "$out/windows/astral.dll" ]; } &&
  [ -z "$(find . \( -path ./build -o -path "./.*" -o -path ./tests -o -path ./examples -o -path ./cmd \
    -o -path ./unreal -o -name '_*' -o -name testdata \) -prune -o \
    \( -name '*.go' ! -name '*_test.go' -o -name '*.s' -o -name '*.c' -o -name '*.h' -o -name go.mod \
    -o -name go.sum -o -path ./include/astral.hpp -o -path ./scripts/build-lib.sh \
    -o -path ./scripts/localize-archive.sh \) -newer "$stamp" -print -quit)" ]; then
  echo "build-lib: $out is up to date (BUILD_LIB_FORCE=1 rebuilds)"
  exit 0
fi
rm -f "$stamp"
# The stamp takes the time the build started: a source saved meanwhile is newer.
touch "$stamp.start"

mkdir -p "$out/include" "$out/cgo"
export CGO_ENABLED=1

echo "build-lib: $out/libastral.so ($soname)"
"$go" build -trimpath -buildmode=c-shared \
  -ldflags="-extldflags=-Wl,-soname,$soname" -o "$out/libastral.so" ./capi
mv "$out/libastral.h" "$out/cgo/libastral-shared.h"
ln -sf libastral.so "$out/$soname"

echo "build-lib: $out/libastral.a"
"$go" build -trimpath -buildmode=c-archive -o "$out/libastral.a" ./capi
mv "$out/libastral.h" "$out/cgo/libastral.h"
scripts/localize-archive.sh "$out/libastral.a" include/astral.h

echo "build-lib: $out/debug/libastral.so, .a (test build: -tags astral_debug)"
mkdir -p "$out/debug/cgo"
"$go" build -trimpath -tags astral_debug -buildmode=c-shared \
  -ldflags="-extldflags=-Wl,-soname,$soname" -o "$out/debug/libastral.so" ./capi
mv "$out/debug/libastral.h" "$out/debug/cgo/libastral-shared.h"
ln -sf libastral.so "$out/debug/$soname"
"$go" build -trimpath -tags astral_debug -buildmode=c-archive -o "$out/debug/libastral.a" ./capi
mv "$out/debug/libastral.h" "$out/debug/cgo/libastral.h"
scripts/localize-archive.sh "$out/debug/libastral.a" include/astral.h

cp include/astral.h include/astral.hpp "$out/include/"

if [ $have_mingw = yes ]; then
  echo "build-lib: $out/windows/astral.dll"
  mkdir -p "$out/windows"
  CC=$mingw GOOS=windows GOARCH=amd64 "$go" build -trimpath -buildmode=c-shared \
    -ldflags="-extldflags '-static-libgcc -static -Wl,--out-implib,$out/windows/libastral.dll.a'" \
    -o "$out/windows/astral.dll" ./capi
  rm -f "$out/windows/astral.h"
  cp include/astral.h include/astral.hpp "$out/windows/"
else
  echo "build-lib: SKIPPED build/windows/astral.dll: $mingw not found" \
    "(Debian: apt-get install gcc-mingw-w64-x86-64)"
fi

echo "$stamp_says" >"$stamp"
touch -r "$stamp.start" "$stamp"
rm -f "$stamp.start"
