#!/usr/bin/env bash
# Tests `make install` as a user meets it, and prints a summary:
#   install        make install PREFIX=<scratch>: exactly the expected files,
#                  the SONAME links, a library with that SONAME
#   cmake-host     tests/c/consumer/cmake, a separate project:
#                  find_package(Astral) from that prefix; the C program on
#                  the shared library and on the archive, the C++ one
#                  (astral.hpp) on the shared library; each builds and runs
#   pkgconfig-host tests/c/consumer/pkg-config, a separate Makefile project:
#                  pkg-config --static astral-static (C and C++) and
#                  pkg-config astral (shared, rpath); each builds and runs
#   static-alone   the prefix moved away: the archive-linked programs still
#                  run, the shared ones no longer find libastral.so.0
#   destdir        make install PREFIX=/opt/astral DESTDIR=<stage>: the same
#                  files under <stage>/opt/astral, nothing elsewhere; both
#                  hosts build and run against the staged, relocated tree
# Needs: go, gcc, g++, make, cmake, pkg-config.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
# The hosts are separate projects: nothing of an outer make's command line
# (make test FOO=...) or of an outer DESTDIR may reach them.
unset MAKEFLAGS MFLAGS MAKELEVEL DESTDIR PKG_CONFIG_PATH

root=$PWD
work=$root/build/test-install
logs=$work/logs
rm -rf "$work"
mkdir -p "$logs"
source scripts/steps.sh

prefix=$work/prefix
version=$(sed -n 's/^#define ASTRAL_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' include/astral.h | paste -sd. -)
major=${version%%.*}

# expect_tree DIR: DIR holds exactly the installed files, with the links.
expect_tree() {
  local dir=$1 want got
  want=$(printf '%s\n' include/astral.h include/astral.hpp \
    lib/cmake/Astral/AstralConfig.cmake lib/cmake/Astral/AstralConfigVersion.cmake \
    lib/libastral.a lib/libastral.so "lib/libastral.so.$major" "lib/libastral.so.$version" \
    lib/pkgconfig/astral-static.pc lib/pkgconfig/astral.pc)
  got=$(cd "$dir" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort)
  if [ "$got" != "$want" ]; then
    diff <(echo "$want") <(echo "$got") || true
    echo "$dir: installed files differ from the expected list (< expected, > installed)"
    exit 1
  fi
  [ "$(readlink "$dir/lib/libastral.so")" = "libastral.so.$major" ]
  [ "$(readlink "$dir/lib/libastral.so.$major")" = "libastral.so.$version" ]
  [ ! -L "$dir/lib/libastral.so.$version" ]
  readelf -d "$dir/lib/libastral.so.$version" | grep -F "Library soname: [libastral.so.$major]"
  cmp include/astral.h "$dir/include/astral.h"
  cmp include/astral.hpp "$dir/include/astral.hpp"
}

# needs_libastral BIN yes|no: whether BIN's dynamic section names libastral.
needs_libastral() {
  local needed
  needed=$(readelf -d "$1" | grep NEEDED || true)
  if [ "$2" = yes ]; then
    grep -F "[libastral.so.$major]" <<<"$needed"
  elif grep -F libastral <<<"$needed"; then
    echo "$1 needs libastral at run time; it should hold the archive"
    exit 1
  fi
}

# run_host BIN: runs a host program; it checks its own query result.
run_host() {
  local out
  out=$("$1")
  echo "$out"
  grep -qE '^host \((C|C\+\+)\): libastral [0-9.]+, nearest id 10 score' <<<"$out"
}

# cmake_host PREFIX DIR: configures, builds and runs the CMake host in DIR.
cmake_host() {
  local at=$1 dir=$2
  cmake -S tests/c/consumer/cmake -B "$dir" -DCMAKE_PREFIX_PATH="$at" -DCMAKE_BUILD_TYPE=Release
  # The package found is the one in PREFIX, not another on the system.
  grep -Fx "Astral_DIR:PATH=$at/lib/cmake/Astral" "$dir/CMakeCache.txt"
  cmake --build "$dir"
  needs_libastral "$dir/host_shared" yes
  needs_libastral "$dir/host_cpp" yes
  needs_libastral "$dir/host_static" no
  ldd "$dir/host_shared" | grep -F "libastral.so.$major => $at/lib/libastral.so.$major"
  run_host "$dir/host_shared"
  run_host "$dir/host_static"
  run_host "$dir/host_cpp"
}

# pkgconfig_host PREFIX DIR: builds and runs the Makefile host in DIR.
pkgconfig_host() {
  local at=$1 dir=$2 libs
  # Only PREFIX's .pc files, none of the system's.
  export PKG_CONFIG_LIBDIR=$at/lib/pkgconfig
  [ "$(pkg-config --modversion astral)" = "$version" ]
  [ "$(pkg-config --modversion astral-static)" = "$version" ]
  libs=$(pkg-config --static --libs astral-static)
  echo "pkg-config --static --libs astral-static: $libs"
  if ! grep -q '/libastral\.a' <<<"$libs" || grep -q -- '-lastral' <<<"$libs"; then
    echo "astral-static does not name the archive alone"
    exit 1
  fi
  mkdir -p "$dir"
  make -f "$root/tests/c/consumer/pkg-config/Makefile" -C "$dir"
  needs_libastral "$dir/host_static" no
  needs_libastral "$dir/host_cpp" no
  needs_libastral "$dir/host_shared" yes
  run_host "$dir/host_static"
  run_host "$dir/host_cpp"
  run_host "$dir/host_shared"
}

install_prefix() {
  make install PREFIX="$prefix"
  expect_tree "$prefix"
  echo "NOTE: $(cd "$prefix" && find . \( -type f -o -type l \) | wc -l) files, libastral $version"
}

cmake_hosts() {
  cmake_host "$prefix" "$work/cmake-host"
  echo "NOTE: find_package(Astral): C shared + static, C++ shared run"
}

pkgconfig_hosts() {
  pkgconfig_host "$prefix" "$work/pkgconfig-host"
  echo "NOTE: pkg-config --static astral-static (C, C++), astral (shared) run"
}

static_alone() {
  mv "$prefix" "$prefix.moved"
  trap 'mv "$prefix.moved" "$prefix"' EXIT
  run_host "$work/cmake-host/host_static"
  run_host "$work/pkgconfig-host/host_static"
  run_host "$work/pkgconfig-host/host_cpp"
  local bin
  for bin in "$work/cmake-host/host_shared" "$work/pkgconfig-host/host_shared"; do
    if "$bin" 2>"$work/missing.txt"; then
      echo "$bin ran without the prefix: it did not use the installed .so"
      exit 1
    fi
    grep -F "libastral.so.$major" "$work/missing.txt"
  done
  echo "NOTE: archive-linked hosts run without the prefix"
}

destdir() {
  local stage=$work/stage
  make install PREFIX=/opt/astral DESTDIR="$stage"
  [ "$(ls -A "$stage")" = opt ]
  [ "$(ls -A "$stage/opt")" = astral ]
  expect_tree "$stage/opt/astral"
  # Relocatable: the package and .pc files name no absolute prefix.
  if grep -rn /opt/astral "$stage/opt/astral/lib/cmake" "$stage/opt/astral/lib/pkgconfig"; then
    echo "an installed file names its prefix: it cannot be moved"
    exit 1
  fi
  cmake_host "$stage/opt/astral" "$work/destdir-cmake-host"
  pkgconfig_host "$stage/opt/astral" "$work/destdir-pkgconfig-host"
  echo "NOTE: DESTDIR honoured; the staged tree works where it lies"
}

step install install_prefix
step cmake-host cmake_hosts
step pkgconfig-host pkgconfig_hosts
step static-alone static_alone
step destdir destdir

summary test-install
