#!/usr/bin/env bash
# Where the Go tests' time goes, per configuration: each package's test
# binary runs alone under /usr/bin/time (user+sys CPU seconds, which a busy
# machine disturbs far less than wall time), then the most costly tests.
# A test's cost is its wall time scaled by its package's CPU/wall ratio: on a
# shared machine compare shares, not seconds.
#   scripts/test-cost.sh [CONFIG...]   plain race noasm qemu (default: all)
#   TOP=25 shows that many tests per configuration; REPORT_ONLY=1 prints
#   the table from the last run's files without running anything.
#   PKGS="./astral ./hnsw" measures only those packages.
# Outputs OUT/<config>/<pkg>.{json,time} (OUT: build/test-cost) and a table
# on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
top=${TOP:-25}
out=${OUT:-build/test-cost}
configs=("$@")
((${#configs[@]})) || configs=(plain race noasm qemu)
mapfile -t pkgs < <(go list -f '{{if .TestGoFiles}}{{.ImportPath}}{{else if .XTestGoFiles}}{{.ImportPath}}{{end}}' ${PKGS:-./...})
mod=$(go list -m)
QEMU=${QEMU:-$(command -v qemu-aarch64 || true)}

run_config() {
  local config=$1 dir=$PWD/$out/$1 pkg rel bin build=() run=() env=()
  mkdir -p "$dir"
  case $config in
  plain) ;;
  race) build=(-race) run=(-test.short) ;;
  noasm) build=(-tags noasm) run=(-test.short) ;;
  qemu) env=(GOOS=linux GOARCH=arm64 CGO_ENABLED=0) run=(-test.short) ;;
  esac
  for pkg in "${pkgs[@]}"; do
    rel=${pkg#"$mod"}; rel=${rel#/}; rel=${rel:-.}
    local name=${rel//\//_} args=("${run[@]}")
    # As make test runs them: the kernel's own tests full size in noasm and qemu.
    [[ $rel == kernel && $config != plain && $config != race ]] && args=()
    [[ $config == qemu && ! $rel =~ ^(kernel|flat|hnsw|astral|internal/pool|internal/fixture)$ ]] && continue
    bin=$dir/$name.test
    env "${env[@]}" go test -c "${build[@]}" -o "$bin" "./$rel" || { echo "$config $rel: build failed"; continue; }
    [ -x "$bin" ] || continue
    local cmd=("$bin")
    # As scripts/test-arm64.sh runs them (internal/testsize).
    [[ $config == qemu ]] && cmd=(env ASTRAL_TEST_EMULATED=1 "$QEMU" "$bin")
    (cd "$rel" && /usr/bin/time -f '%U %S %e' -o "$dir/$name.time" \
      "${cmd[@]}" -test.v=test2json -test.count=1 -test.timeout=60m "${args[@]}" 2>&1 |
      go tool test2json -t -p "$rel" >"$dir/$name.json") || echo "$config $rel: FAILED"
  done
}

if [ "${REPORT_ONLY:-0}" != 1 ]; then
  for c in "${configs[@]}"; do run_config "$c"; done
fi

# The table: per configuration, each package's CPU and wall seconds, then the
# top tests (top-level and their subtests) by estimated CPU seconds.
python3 - "$out" "$top" "${configs[@]}" <<'PY'
import json, os, sys
out, top, configs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
for config in configs:
    d = os.path.join(out, config)
    if not os.path.isdir(d):
        continue
    pkgs, tests = [], []
    for f in sorted(os.listdir(d)):
        if not f.endswith('.time'):
            continue
        name = f[:-5]
        try:
            user, sys_, wall = map(float, open(os.path.join(d, f)).read().split()[-3:])
        except ValueError:
            continue
        cpu = user + sys_
        ratio = cpu / wall if wall else 0
        fails = 0
        for line in open(os.path.join(d, name + '.json')):
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get('Action') in ('pass', 'fail') and e.get('Test'):
                test = e['Test']
                el = e.get('Elapsed', 0)
                tests.append((el * ratio, el, name, test, e['Action']))
                fails += e['Action'] == 'fail'
        pkgs.append((cpu, wall, name, fails))
    total_cpu = sum(p[0] for p in pkgs)
    print(f'\n## {config}: {total_cpu:.0f} CPU s in {sum(p[1] for p in pkgs):.0f} wall s')
    print(f'{"package":<22} {"CPU s":>8} {"wall s":>8} {"share":>6}')
    for cpu, wall, name, fails in sorted(pkgs, reverse=True):
        print(f'{name:<22} {cpu:8.1f} {wall:8.1f} {100*cpu/max(total_cpu,1e-9):5.1f}%' + (f'  {fails} FAILED' if fails else ''))
    print(f'\ntop {top} tests (est. CPU s = elapsed x package CPU/wall; top-level tests include their subtests)')
    tops = sorted([t for t in tests if '/' not in t[3]], reverse=True)[:top]
    for i, (cpu, el, pkg, test, action) in enumerate(tops, 1):
        print(f'{i:3} {cpu:8.1f} {el:8.1f}  {pkg}.{test}' + ('' if action == 'pass' else '  FAIL'))
PY
