#!/usr/bin/env bash
# Installs the Debian packages a fresh machine lacks for one job.
# Idempotent: packages already present are not fetched again.
#
# Usage: scripts/install-deps.sh [--dry-run] [PROFILE]
#   --dry-run  print the packages that would be installed, install nothing
#   build    make build, make bench, make lib: a C compiler for cgo (capi/)
#   install  make install: build's, and cmake
#   test     make test and the cross builds (the default): also g++,
#            pkg-config, qemu-user and the aarch64 cross toolchain
#            (test-arm64), mingw-w64 (astral.dll), mono-mcs (the Unreal
#            plugin's Build.cs), clang (the plugin's stand-in compile),
#            python3 (the plugin's checks)
set -euo pipefail

dry_run=0
if [ "${1:-}" = --dry-run ]; then
  dry_run=1
  shift
fi
profile=${1:-test}
need=()
have() { command -v "$1" >/dev/null 2>&1; }
pkg_missing() { ! dpkg -s "$1" >/dev/null 2>&1; }

case $profile in
build | install | test) ;;
*)
  echo "install-deps: unknown profile '$profile' (build, install or test)" >&2
  exit 2
  ;;
esac

have gcc || need+=(gcc)
have make || need+=(make)

if [ "$profile" != build ]; then
  have cmake || need+=(cmake)
fi

if [ "$profile" = test ]; then
  have g++ || need+=(g++)
  have clang++ || need+=(clang) # the Unreal stand-in compile: Unreal's Linux and Mac compiler
  have pkg-config || need+=(pkg-config)
  have qemu-aarch64 || need+=(qemu-user)
  have aarch64-linux-gnu-objdump || need+=(binutils-aarch64-linux-gnu)
  have aarch64-linux-gnu-gcc || need+=(gcc-aarch64-linux-gnu)
  have x86_64-w64-mingw32-gcc || need+=(gcc-mingw-w64-x86-64)
  have x86_64-w64-mingw32-g++ || need+=(g++-mingw-w64-x86-64)
  if pkg_missing libc6-dev-arm64-cross; then need+=(libc6-dev-arm64-cross); fi
  have mcs || need+=(mono-mcs)
  have python3 || need+=(python3)
fi

if ((dry_run)); then
  echo "install-deps ($profile): would install: ${need[*]:-nothing}"
  exit 0
fi

if ((${#need[@]})); then
  echo "install-deps ($profile): installing ${need[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! command -v go >/dev/null 2>&1 && [ ! -x /usr/local/go/bin/go ]; then
  echo "install-deps: Go 1.26 is required (https://go.dev/dl); none found" >&2
  exit 1
fi
