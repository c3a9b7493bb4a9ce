#!/usr/bin/env bash
# Builds libastral from the Astral repository and stages it where
# AstralLibrary.Build.cs looks for it, with the headers:
#   Binaries/ThirdParty/Astral/Linux/libastral.so   (on Linux)
#   Binaries/ThirdParty/Astral/Win64/astral.dll     (cross-built with mingw-w64)
#   Binaries/ThirdParty/Astral/Mac/libastral.dylib  (on a Mac: arm64 + x86_64)
#   Source/ThirdParty/AstralLibrary/include/        astral.h, astral.hpp, astral_bench.hpp
# Usage: build_libastral.sh [ASTRAL_REPO]
#   ASTRAL_REPO defaults to the repository this plugin sits in (../..).
# Needs Go 1.26 and a C compiler; mingw-w64 (Debian: gcc-mingw-w64-x86-64)
# for the Windows DLL, which is skipped with a message without it.
set -euo pipefail
plugin=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "${1:-$plugin/../..}" && pwd)
[ -f "$repo/include/astral.h" ] || { echo "build_libastral: no include/astral.h in $repo" >&2; exit 1; }
stage=$plugin/Binaries/ThirdParty/Astral
build=${ASTRAL_BUILD_DIR:-$repo/build}

case $(uname -s) in
Linux)
  "$repo/scripts/build-lib.sh" "$build"
  mkdir -p "$stage/Linux"
  # The file itself, not the SONAME link: the plugin loads it by path.
  cp -L "$build/libastral.so" "$stage/Linux/libastral.so"
  echo "build_libastral: $stage/Linux/libastral.so"
  if [ -f "$build/windows/astral.dll" ]; then
    mkdir -p "$stage/Win64"
    cp "$build/windows/astral.dll" "$stage/Win64/astral.dll"
    echo "build_libastral: $stage/Win64/astral.dll"
  else
    echo "build_libastral: SKIPPED Win64/astral.dll: mingw-w64 not found (Debian: apt-get install gcc-mingw-w64-x86-64)"
  fi
  ;;
Darwin)
  # A universal dylib; its install name lets the plugin load it by path.
  go=${GO:-go}
  mkdir -p "$build/mac" "$stage/Mac"
  for arch in arm64 amd64; do
    clang_arch=$arch
    [ "$arch" = amd64 ] && clang_arch=x86_64
    (cd "$repo" && CGO_ENABLED=1 GOOS=darwin GOARCH=$arch CC="clang -arch $clang_arch" \
      "$go" build -trimpath -buildmode=c-shared \
      -ldflags="-extldflags=-Wl,-install_name,@rpath/libastral.dylib" \
      -o "$build/mac/libastral-$arch.dylib" ./capi)
  done
  lipo -create -output "$stage/Mac/libastral.dylib" "$build/mac/libastral-arm64.dylib" "$build/mac/libastral-amd64.dylib"
  echo "build_libastral: $stage/Mac/libastral.dylib (sign it with the game for distribution)"
  ;;
*)
  echo "build_libastral: build on Linux (Linux + Win64) or macOS (Mac); for Windows-only hosts use a Linux" \
    "machine or WSL with mingw-w64" >&2
  exit 1
  ;;
esac

# The headers the plugin compiles against, staged only once the library they
# describe is built, so the two always match.
include=$plugin/Source/ThirdParty/AstralLibrary/include
mkdir -p "$include"
# Only headers that differ: a copy would touch the plugin's identical ones
# and rebuild everything that includes them.
for h in "$repo/include/astral.h" "$repo/include/astral.hpp" "$repo/examples/cpp/astral_bench.hpp"; do
  cmp -s "$h" "$include/${h##*/}" || cp "$h" "$include/"
done
echo "build_libastral: headers -> $include"
