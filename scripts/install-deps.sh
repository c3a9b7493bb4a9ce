#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks for the build and the tests.
# Idempotent: packages already present are not fetched again.
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
pkg_missing() { ! dpkg -s "$1" >/dev/null 2>&1; }

have gcc || need+=(gcc)
have g++ || need+=(g++)
have make || need+=(make)
have cmake || need+=(cmake)
have pkg-config || need+=(pkg-config)
have qemu-aarch64 || need+=(qemu-user)
have aarch64-linux-gnu-objdump || need+=(binutils-aarch64-linux-gnu)
have aarch64-linux-gnu-gcc || need+=(gcc-aarch64-linux-gnu)
have x86_64-w64-mingw32-gcc || need+=(gcc-mingw-w64-x86-64)
have x86_64-w64-mingw32-g++ || need+=(g++-mingw-w64-x86-64)
pkg_missing libc6-dev-arm64-cross && need+=(libc6-dev-arm64-cross)
have mcs || need+=(mono-mcs)
have python3 || need+=(python3)

if ((${#need[@]})); then
  echo "install-deps: installing ${need[*]}"
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
