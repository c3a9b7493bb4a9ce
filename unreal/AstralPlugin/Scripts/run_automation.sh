#!/usr/bin/env bash
# Runs the Astral Automation tests headless and fails if any fails.
# Usage: run_automation.sh UNREAL_EDITOR_CMD PROJECT.uproject [FILTER] [extra editor arguments...]
#   UNREAL_EDITOR_CMD  e.g. ~/UnrealEngine/Engine/Binaries/Linux/UnrealEditor-Cmd
#   FILTER             test name prefix, default Astral (all of them)
# The fixture is regenerated inside the tests; to use `astral fixture`'s files
# instead pass -AstralFixtureBase=B.fvecs -AstralFixtureQueries=Q.fvecs.
set -euo pipefail
editor=${1:?usage: run_automation.sh UNREAL_EDITOR_CMD PROJECT.uproject [FILTER] [args...]}
project=${2:?usage: run_automation.sh UNREAL_EDITOR_CMD PROJECT.uproject [FILTER] [args...]}
filter=${3:-Astral}
shift $(($# < 3 ? $# : 3))
project=$(cd "$(dirname "$project")" && pwd)/$(basename "$project")
report=$(dirname "$project")/Saved/Automation/Astral
log=$report/editor.log
mkdir -p "$report"

set +e
"$editor" "$project" -ExecCmds="Automation RunTests $filter; Quit" -unattended -nullrhi -nopause -nosplash \
  -NoSound -stdout -FullStdOutLogOutput -ReportExportPath="$report" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

# The editor's exit code does not reflect test results: read them.
grep -E 'Astral\.|LogAstral' "$log" | grep -E 'Test Completed|Result=|recall@|p50 ' || true
if grep -qE 'Result=\{(Fail|Failed)\}' "$log"; then
  echo "run_automation: a test failed (log: $log)"
  exit 1
fi
if ! grep -qE 'Test Completed.*Result=\{(Success|Passed)\}' "$log"; then
  echo "run_automation: no test completed (editor exit $status; log: $log)"
  exit 1
fi
echo "run_automation: passed (report: $report/index.json)"
