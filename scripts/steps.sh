# Sourced by the test scripts: run named steps, log each, print a summary.
# The caller sets $logs (a folder) before the first step.
start_all=$(date +%s)
names=() results=() durations=() notes=()

# step NAME FUNCTION: runs FUNCTION in a subshell with errexit, logs its
# output, and records PASS, FAIL or SKIP (FUNCTION exits 77 to skip).
# Lines FUNCTION prints as "NOTE: ..." go into the summary.
step() {
  local name=$1 fn=$2 t0 rc note
  t0=$(date +%s)
  echo "== $name"
  set +e
  (set -euo pipefail; "$fn") >"$logs/$name.log" 2>&1
  rc=$?
  set -e
  note=$(grep -E '^NOTE: ' "$logs/$name.log" | sed 's/^NOTE: //' | paste -sd ';' - || true)
  case $rc in
  0) results+=(PASS) ;;
  77) results+=(SKIP) ;;
  *) results+=(FAIL); tail -n 40 "$logs/$name.log" | sed 's/^/   | /' ;;
  esac
  names+=("$name") durations+=($(($(date +%s) - t0))) notes+=("$note")
}

# summary TITLE: prints every step's outcome and exits non-zero if any failed.
summary() {
  local i failed=0
  echo
  echo "$1 summary ($(($(date +%s) - start_all)) s; logs in $logs)"
  for i in "${!names[@]}"; do
    printf '  %-5s %-12s %4ss  %s\n' "${results[$i]}" "${names[$i]}" "${durations[$i]}" "${notes[$i]}"
    [ "${results[$i]}" != FAIL ] || failed=1
  done
  exit $failed
}
