#!/usr/bin/env bash
# Compiles every .cpp of the Astral Unreal plugin against the stand-in UE
# headers in ue/, as UnrealBuildTool would lay out the include paths, with
# Unreal's defaults (-fno-exceptions -fno-rtti, -Wundef: every #if names a
# defined macro) and -std=c++20 -Wall -Wextra -Wshadow -Werror:
#   - each .cpp alone, -fsyntax-only, with g++ for Linux as an editor
#     target (WITH_EDITOR=1, Development, with the Automation tests) and as
#     a game target (WITH_EDITOR=0, Shipping, WITH_DEV_AUTOMATION_TESTS=0):
#     every file includes what it uses, in both configurations;
#   - every .cpp in one unity file, -fsyntax-only, for the other targets:
#       Linux with clang++ (Unreal's Linux and Mac compiler), editor and game,
#       Mac with clang++ (PLATFORM_MAC), editor,
#       Win64 with mingw-w64 g++ (so _WIN32 and astral.h's dllimport are
#       real), editor (the game target is the Win64 unity object below):
#     a compiler's diagnostics do not depend on how the files are grouped,
#     and the files' includes were proved alone above; --full compiles
#     each .cpp alone for every target too (make test-long);
#   - signatures.cpp with every compiler: the stand-ins' signatures against
#     the engine's documented ones;
#   - all of them in one unity file (as a UBT unity build), compiled to an
#     object for Linux and Win64, whose undefined symbols must name no astral_*
#     function: every call goes through the function table, so nothing links
#     against libastral and Windows needs no import library.
# Usage: compile.sh [--source DIR] [--work DIR] [--only FILE.cpp | --unity-only | --full]
#   --source      the plugin's Source/ (default: ../AstralPlugin/Source)
#   --full        each .cpp alone for every compiler and target
#   --only        compile that one file alone (Linux, g++, editor) and nothing else
#   --unity-only  only the unity objects and their symbol check
# CXX and CLANGXX choose the compilers (g++, clang++); without clang++ its
# compiles are skipped with a message.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$here/../AstralPlugin/Source
work=${TMPDIR:-/tmp}/astral-stubcheck
only=
unity_only=0
full=0
while [ $# -gt 0 ]; do
  case $1 in
  --source) source_dir=$2; shift 2 ;;
  --work) work=$2; shift 2 ;;
  --only) only=$2; shift 2 ;;
  --unity-only) unity_only=1; shift ;;
  --full) full=1; shift ;;
  *) echo "compile.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
source_dir=$(cd "$source_dir" && pwd)
module=$source_dir/AstralPlugin
mkdir -p "$work"
work=$(cd "$work" && pwd)
jobs=$(nproc 2>/dev/null || echo 2)

# UHT writes X.generated.h for every reflected header. Here they are empty
# but for the two includes every generated header starts with, which is
# where a reflected header gets USTRUCT, UCLASS and the rest from.
gen=$work/generated
rm -rf "$gen"
mkdir -p "$gen"
grep -rhoE '#include "[A-Za-z0-9_]+\.generated\.h"' "$module" | sed -E 's/#include "(.*)"/\1/' |
  sort -u | while read -r name; do
    printf '#pragma once\n#include "UObject/ObjectMacros.h"\n#include "UObject/ScriptMacros.h"\n' >"$gen/$name"
  done

# The definitions UBT passes: the module's API macro, the build switches, and
# what AstralLibrary.Build.cs defines for each platform (ASTRAL_PATH_* come
# from evaluating it, see check_plugin.py; these defaults are its values).
# The headers come from the plugin's staged include/ (build_libastral.sh);
# without it, from the repository's include/, which they are copies of.
common=(-std=c++20 -Wall -Wextra -Wshadow -Werror -fno-exceptions -fno-rtti -Wundef
  -isystem "$here/ue" -isystem "$gen" -isystem "$source_dir/ThirdParty/AstralLibrary/include"
  -isystem "$here/../../include"
  -I "$module/Public" -I "$module/Private"
  -DASTRALPLUGIN_API=)
# The build switches UBT sets for an editor (Development) and a game
# (Shipping) target.
editor=(-DWITH_EDITOR=1 -DWITH_EDITORONLY_DATA=1 -DUE_EDITOR=1 -DUE_GAME=0 -DIS_MONOLITHIC=0
  -DUE_BUILD_DEBUG=0 -DUE_BUILD_DEVELOPMENT=1 -DUE_BUILD_TEST=0 -DUE_BUILD_SHIPPING=0 -DWITH_DEV_AUTOMATION_TESTS=1)
game=(-DWITH_EDITOR=0 -DWITH_EDITORONLY_DATA=0 -DUE_EDITOR=0 -DUE_GAME=1 -DIS_MONOLITHIC=1
  -DUE_BUILD_DEBUG=0 -DUE_BUILD_DEVELOPMENT=0 -DUE_BUILD_TEST=0 -DUE_BUILD_SHIPPING=1 -DWITH_DEV_AUTOMATION_TESTS=0)
linux=(-DPLATFORM_LINUX=1 "-DASTRAL_LIBRARY_PATH=\"${ASTRAL_PATH_LINUX:-Binaries/ThirdParty/Astral/Linux/libastral.so}\"")
mac=(-DPLATFORM_MAC=1 "-DASTRAL_LIBRARY_PATH=\"${ASTRAL_PATH_MAC:-Binaries/ThirdParty/Astral/Mac/libastral.dylib}\"")
win64=(-DPLATFORM_WINDOWS=1 "-DASTRAL_LIBRARY_PATH=\"${ASTRAL_PATH_WIN64:-Binaries/ThirdParty/Astral/Win64/astral.dll}\"")

cxx=${CXX:-g++}
clang=${CLANGXX:-clang++}
command -v "$clang" >/dev/null 2>&1 || { echo "compile.sh: SKIPPED clang++: $clang not found (Debian: apt-get install clang)"; clang=; }
# The posix-threads mingw compiler has std::thread, as MSVC has.
mingw=
for c in x86_64-w64-mingw32-g++-posix x86_64-w64-mingw32-g++; do
  if command -v "$c" >/dev/null 2>&1 && echo '#include <thread>' | "$c" -std=c++20 -fsyntax-only -x c++ - 2>/dev/null; then
    mingw=$c
    break
  fi
done

if [ -n "$only" ]; then
  exec "$cxx" "${common[@]}" "${linux[@]}" "${editor[@]}" -fsyntax-only "$only"
fi

mapfile -t sources < <(find "$module" -name '*.cpp' | sort)
[ ${#sources[@]} -gt 0 ] || { echo "compile.sh: no .cpp under $module" >&2; exit 1; }

if [ $unity_only -eq 0 ]; then
  # One script per compile, run in parallel; each prints its output only on failure.
  jobdir=$work/jobs
  rm -rf "$jobdir"
  mkdir -p "$jobdir"
  count=0
  add_job() { # label compiler args...
    local label=$1
    shift
    count=$((count + 1))
    {
      echo 'log=$(mktemp)'
      printf '%q ' "$@"
      echo '>"$log" 2>&1 && { rm -f "$log"; exit 0; }'
      printf 'echo %q\n' "FAIL [$label] ${*: -1}"
      echo 'cat "$log"; rm -f "$log"; exit 1'
    } >"$jobdir/$count.sh"
  }
  compilers="g++"
  # The unity file for the targets whose files are not compiled alone.
  unity_check=$work/unity-check.cpp
  for f in "${sources[@]}"; do echo "#include \"$f\""; done >"$unity_check"
  others=("$here/signatures.cpp")
  if [ $full -eq 0 ]; then
    for f in "${sources[@]}"; do
      add_job "linux-gcc-editor" "$cxx" "${common[@]}" "${linux[@]}" "${editor[@]}" -fsyntax-only "$f"
      add_job "linux-gcc-game" "$cxx" "${common[@]}" "${linux[@]}" "${game[@]}" -fsyntax-only "$f"
    done
    others+=("$unity_check")
  else
    others+=("${sources[@]}")
  fi
  for f in "${others[@]}"; do
    if [ "$f" != "$unity_check" ]; then
      add_job "linux-gcc-editor" "$cxx" "${common[@]}" "${linux[@]}" "${editor[@]}" -fsyntax-only "$f"
      add_job "linux-gcc-game" "$cxx" "${common[@]}" "${linux[@]}" "${game[@]}" -fsyntax-only "$f"
    fi
    if [ -n "$clang" ]; then
      add_job "linux-clang-editor" "$clang" "${common[@]}" "${linux[@]}" "${editor[@]}" -fsyntax-only "$f"
      add_job "linux-clang-game" "$clang" "${common[@]}" "${linux[@]}" "${game[@]}" -fsyntax-only "$f"
      add_job "mac-clang-editor" "$clang" "${common[@]}" "${mac[@]}" "${editor[@]}" -fsyntax-only "$f"
    fi
    if [ -n "$mingw" ]; then
      add_job "win64-mingw-editor" "$mingw" "${common[@]}" "${win64[@]}" "${editor[@]}" -fsyntax-only "$f"
      [ "$f" = "$unity_check" ] ||
        add_job "win64-mingw-game" "$mingw" "${common[@]}" "${win64[@]}" "${game[@]}" -fsyntax-only "$f"
    fi
  done
  [ -z "$clang" ] || compilers="$compilers, $clang"
  [ -z "$mingw" ] || compilers="$compilers, $mingw"

  failed=0
  find "$jobdir" -name '*.sh' -print0 | xargs -0 -n 1 -P "$jobs" bash || failed=1
  [ $failed -eq 0 ] || { echo "compile.sh: a compile failed"; exit 1; }
  if [ $full -eq 0 ]; then
    echo "compiled ${#sources[@]} files alone (g++, editor and game), in one unity file and signatures.cpp with every other target: $count syntax checks with -fno-exceptions -fno-rtti -Wundef ($compilers; linux and win64 as editor and game, mac as editor)"
  else
    echo "compiled ${#sources[@]} files and signatures.cpp: $count syntax checks with -fno-exceptions -fno-rtti -Wundef ($compilers; linux and win64 as editor and game, mac as editor)"
  fi
fi

# Unity build: every .cpp in one translation unit, to an object.
unity=$work/unity.cpp
for f in "${sources[@]}"; do echo "#include \"$f\""; done >"$unity"
"$cxx" "${common[@]}" "${linux[@]}" "${editor[@]}" -c "$unity" -o "$work/unity-linux.o"
direct=$(nm -u "$work/unity-linux.o" | awk '{print $NF}' | grep -E '^astral_' || true)
if [ -n "$direct" ]; then
  echo "compile.sh: the unity object calls libastral directly, bypassing the function table:"
  echo "$direct"
  exit 1
fi
note="unity build: no undefined astral_* symbol (linux)"
if [ -n "$mingw" ]; then
  "$mingw" "${common[@]}" "${win64[@]}" "${game[@]}" -c "$unity" -o "$work/unity-win64.o"
  direct=$(x86_64-w64-mingw32-nm -u "$work/unity-win64.o" | awk '{print $NF}' | grep -E '^(__imp_)?astral_' || true)
  if [ -n "$direct" ]; then
    echo "compile.sh: the Win64 unity object needs an import library for:"
    echo "$direct"
    exit 1
  fi
  note="$note and win64: no import library needed"
fi
echo "$note"
