#!/usr/bin/env bash
# The README quotes code that is compiled and run: each fenced block right
# after a marker line must equal its source exactly.
#   <!-- sample: PATH -->        the whole file (C and C++ under examples/,
#                                built and run by CTest)
#   <!-- sample: PATH FUNC -->   the body of Go function FUNC, one tab less
#                                (Example functions, run by go test)
# usage: scripts/check-readme-samples.sh [README]   (paths are repository-relative)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
readme=${1:-$root/README.md}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Split the README's marked blocks into $tmp/N.block with $tmp/N.src naming
# their source ("PATH" or "PATH FUNC").
awk -v dir="$tmp" '
  /^<!-- sample: .* -->$/ {
    n++; src = $0; sub(/^<!-- sample: /, "", src); sub(/ -->$/, "", src)
    print src > (dir "/" n ".src"); close(dir "/" n ".src")
    want_fence = 1; next
  }
  want_fence {
    if ($0 !~ /^```/) { printf "README line %d: no code block after the sample marker\n", NR > "/dev/stderr"; exit 2 }
    want_fence = 0; inside = 1; printf "" > (dir "/" n ".block"); next
  }
  inside && /^```$/ { inside = 0; close(dir "/" n ".block"); next }
  inside { print >> (dir "/" n ".block") }
  END { if (inside) { print "README: unclosed sample block" > "/dev/stderr"; exit 2 } }
' "$readme"

count=0 failed=0
for src in "$tmp"/*.src; do
  [ -e "$src" ] || break
  i=${src%.src}
  read -r path func <"$src"
  if [ ! -f "$root/$path" ]; then
    echo "README sample $(basename "$i"): $path does not exist"
    failed=1
    continue
  fi
  if [ -n "${func:-}" ]; then
    awk -v f="$func" '
      $0 ~ "^func " f "\\(\\) \\{$" { on = 1; found = 1; next }
      on && /^}$/ { on = 0 }
      on { sub(/^\t/, ""); print }
      END { if (!found) exit 3 }
    ' "$root/$path" >"$i.want" || { echo "README sample: no func $func() in $path"; failed=1; continue; }
  else
    cp "$root/$path" "$i.want"
  fi
  if ! diff -u --label "$path${func:+ $func}" --label "README" "$i.want" "$i.block"; then
    failed=1
  fi
  count=$((count + 1))
done
[ "$count" -gt 0 ] || { echo "README: no sample markers found"; exit 1; }
[ "$failed" -eq 0 ] || { echo "README samples differ from their sources (above)"; exit 1; }
echo "README: $count samples equal their sources"
