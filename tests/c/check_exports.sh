#!/usr/bin/env bash
# Fails when include/astral.h and a built library's exports drift apart.
# The header's functions must be exactly the astral_* functions of every
# artifact given: with --shipping, those outside the ASTRAL_EXPERIMENTAL
# block (the shipping library has no debug exports); without, all of them
# (the test build, -tags astral_debug):
#   --so LIB         dynamic symbols of a shared library (nm -D)
#   --archive LIB    every global symbol a static archive defines (nm): only
#                    the header's functions, so nothing of cgo's glue can
#                    clash with a host's names (scripts/localize-archive.sh)
#   --cgo-header H   the prototypes cgo generated for the //export functions
#   --dll DLL        the export table of a Windows DLL (objdump -p)
# Usage: check_exports.sh HEADER [--shipping] [--so F] [--archive F] [--cgo-header F] [--dll F]
set -euo pipefail

header=$1
shift
shipping=
if [ "${1:-}" = --shipping ]; then
  shipping=1
  shift
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Every prototype starts with ASTRAL_API on its own line; the name is the
# identifier before the first '('.
if [ -n "$shipping" ]; then
  grep -q '^#ifdef ASTRAL_EXPERIMENTAL$' "$header" || { echo "check_exports: no ASTRAL_EXPERIMENTAL block in $header" >&2; exit 1; }
  sed '/^#ifdef ASTRAL_EXPERIMENTAL$/,/^#endif \/\* ASTRAL_EXPERIMENTAL \*\/$/d' "$header"
else
  cat "$header"
fi | grep -E '^ASTRAL_API ' | sed -E 's/^[^(]*[^a-z0-9_](astral_[a-z0-9_]+)\(.*/\1/' | sort -u >"$tmp/header"
if [ "$(wc -l <"$tmp/header")" -lt 10 ]; then
  echo "check_exports: found only $(wc -l <"$tmp/header") functions in $header" >&2
  exit 1
fi

objdump=${OBJDUMP_PE:-x86_64-w64-mingw32-objdump}
status=0
while [ $# -gt 0 ]; do
  kind=$1 file=$2
  shift 2
  case $kind in
  --so) nm -D --defined-only "$file" | awk '$2 == "T" && $3 ~ /^astral_/ {print $3}' ;;
  --archive) nm -g --defined-only "$file" 2>/dev/null | awk 'NF == 3 {print $3}' ;;
  --cgo-header) grep -E '^extern .*[^a-z0-9_]astral_[a-z0-9_]+\(' "$file" |
    sed -E 's/^[^(]*[^a-z0-9_](astral_[a-z0-9_]+)\(.*/\1/' ;;
  --dll) "$objdump" -p "$file" | sed -n '/^\[Ordinal\/Name Pointer\] Table/,/^$/p' |
    sed -nE 's/^[[:space:]]*\[[[:space:]]*[0-9]+\][[:space:]]+([A-Za-z0-9_]+)$/\1/p' ;;
  *) echo "check_exports: unknown option $kind" >&2; exit 2 ;;
  esac | sort -u >"$tmp/got"
  if ! diff -u --label "$header" --label "$file ($kind)" "$tmp/header" "$tmp/got" >"$tmp/diff"; then
    echo "check_exports: $file ($kind) and $header disagree (-: only in the header, +: only in the library):"
    cat "$tmp/diff"
    status=1
  else
    echo "check_exports: $file ($kind): the header's $(wc -l <"$tmp/header") functions, no more, no fewer"
  fi
done
exit $status
