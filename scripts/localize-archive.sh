#!/usr/bin/env bash
# Leaves the c-archive ARCHIVE with no global symbol but the functions
# HEADER declares. Go's c-archive carries ~70 more (cgo's runtime glue:
# crosscall2, x_cgo_init, _cgo_panic, fatalf, our capi_* helpers), which a
# game linking other C code could collide with. The archive's objects are
# joined into one relocatable object (ld -r: references between them are
# resolved there) and every other symbol made local (objcopy). ELF only:
# elsewhere the archive is left as Go built it, with a message.
# Usage: scripts/localize-archive.sh ARCHIVE HEADER
set -euo pipefail

archive=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
header=$2
ld=${LD:-ld}
objcopy=${OBJCOPY:-objcopy}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Every prototype starts with ASTRAL_API on its own line (as check_exports.sh reads them).
grep -E '^ASTRAL_API ' "$header" | sed -E 's/^[^(]*[^a-z0-9_](astral_[a-z0-9_]+)\(.*/\1/' | sort -u >"$tmp/keep"
[ "$(wc -l <"$tmp/keep")" -ge 10 ] || { echo "localize-archive: no functions found in $header" >&2; exit 1; }

mkdir "$tmp/objects"
(cd "$tmp/objects" && ar x "$archive")
if [ "$(head -c 4 "$tmp/objects/go.o" | tail -c 3)" != ELF ]; then
  echo "localize-archive: SKIPPED: not ELF objects; $archive keeps cgo's global symbols"
  exit 0
fi
# -d allocates common symbols, so that they can be made local too.
"$ld" -r -d -o "$tmp/astral.o" "$tmp"/objects/*.o
"$objcopy" --keep-global-symbols="$tmp/keep" "$tmp/astral.o"
rm -f "$archive.tmp"
ar rcs "$archive.tmp" "$tmp/astral.o"
mv "$archive.tmp" "$archive"
echo "localize-archive: $archive: global symbols: $(nm -g --defined-only "$archive" | awk 'NF == 3' | wc -l) (the header's $(wc -l <"$tmp/keep") functions)"
