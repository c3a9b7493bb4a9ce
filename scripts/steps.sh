# Sourced by the test scripts: run named steps, log each, print a summary.
# The caller sets $logs (a folder) before the first step.
#
# Every step has a budget (STEP_BUDGET seconds, 1800 unless the step names
# its own): a step still running then is killed with everything it started
# and fails, naming its budget, so a hang fails loudly instead of holding
# make test. Budgets are for hangs, several times a step's time on 2 cores
# with one busy, not for slowness.
start_all=$(date +%s)
names=() results=() durations=() notes=()
step_pid=

# A step runs in its own process group (set -m) so its budget, or an
# interrupt of the script, can end all it started.
trap '[ -z "$step_pid" ] || kill -TERM -- "-$step_pid" 2>/dev/null; exit 130' INT TERM

# step NAME FUNCTION [BUDGET]: runs FUNCTION in a subshell with errexit,
# logs its output, and records PASS, FAIL or SKIP (FUNCTION exits 77 to
# skip). Lines FUNCTION prints as "NOTE: ..." go into the summary.
step() {
  local name=$1 fn=$2 budget=${3:-${STEP_BUDGET:-1800}} t0 rc note over=0
  t0=$(date +%s)
  echo "== $name"
  set +e
  set -m
  (set -euo pipefail; "$fn") >"$logs/$name.log" 2>&1 &
  step_pid=$!
  set +m
  while kill -0 "$step_pid" 2>/dev/null; do
    if (($(date +%s) - t0 >= budget)); then
      over=1
      kill -TERM -- "-$step_pid" 2>/dev/null
      for _ in 1 2 3 4 5 6 7 8 9 10; do
        kill -0 "$step_pid" 2>/dev/null || break
        sleep 0.5
      done
      kill -KILL -- "-$step_pid" 2>/dev/null
      break
    fi
    sleep 0.5
  done
  wait "$step_pid"
  rc=$?
  step_pid=
  set -e
  if ((over)); then
    echo "step $name: over its budget of ${budget}s: killed" >>"$logs/$name.log"
    rc=124
  fi
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
