#!/usr/bin/env bash
# Checks the Unreal plugin (unreal/AstralPlugin) without Unreal, and prints a
# summary:
#   stage       `make unreal-plugin` builds libastral, stages it with its
#               headers and packs the plugin zip; the plugin's table lists the
#               expected number of functions, and the .so and the DLL export
#               every one; the staged .so loads by
#               path and answers a query through it
#   package     the zip unpacked into a scratch folder: every file of the
#               plugin there (headers, libraries equal to the staged ones,
#               Build.cs, FilterPlugin.ini, README, scripts); with no Go on
#               PATH its Build.cs files compile (mcs) and pass per platform
#               (Mac stops naming the dylib no Linux machine can build), and
#               stop naming the Linux .so once it is deleted
#   headers     the staged astral.h, astral.hpp equal include/, astral_bench.hpp
#               examples/cpp/, and the copies committed in the plugin
#   rules       AstralPlugin.uplugin (FileVersion 3, 5.7, one Runtime module,
#               Win64/Linux/Mac) and both Build.cs files compiled by mcs against
#               stand-in UBT types and evaluated per platform: External library
#               module, staged path = ASTRAL_LIBRARY_PATH, nothing linked
#   compile     every plugin .cpp compiled against the stand-in UE headers
#               (unreal/stubcheck/ue) with Unreal's defaults (-fno-exceptions
#               -fno-rtti -Wundef) and -std=c++20 -Wall -Wextra -Wshadow
#               -Werror: g++ and clang++ for Linux, clang++ for Mac, mingw-w64
#               for Win64, each as editor and as Shipping game target;
#               signatures.cpp holds the stand-ins to the engine's documented
#               signatures; a unity object per platform with no undefined
#               astral_* symbol (every call goes through the function table)
#   negative    deliberately broken copies of the plugin must fail to compile
#               (wrong argument count through the typed table, FString to %s,
#               pre-5.5 test flags, layout drift, a direct libastral call, ...)
#   uht-lint    the Unreal Header Tool rules a compiler cannot see, on the
#               plugin (no finding) and on lint_fixtures/ (exactly the marked
#               lines flagged, rule by rule)
#   scripts     run_automation.sh/.bat carry the headless RunTests line, and
#               run_automation.sh reads pass, fail and no-test logs right
#   async-gc    CTest unreal_async_gc: the plugin's module and async nodes
#               compiled against the stand-in engine with its run time
#               (unreal/stubcheck/runtime) and run on the real libastral:
#               actions survive garbage collection while their tasks run,
#               a second Activate and Cancel do what they must; Add Memories,
#               Find Nearest (Batch), Save and Load (Async) with filters and payloads;
#               Recall Memories (Async) and Find Nearest (Async) with a budget
#   nodes       CTest unreal_nodes: the same build runs the scoped-query and
#               key nodes (tags by name and Gameplay Tag, owners, payloads,
#               filters, save/load, Upsert, Remove, Clear, Contains, Count, Get
#               Memory Vector, Release) through the scenario of the Automation
#               test Astral.Functional.ScopedQuery, and Recall Memories, Touch
#               Memories, Set Memory Importance and the budget pins through that
#               of Astral.Functional.Recall, each with its exact log lines
#   measure     CTest unreal_measure_*: the Automation tests' measurement
#               (examples/cpp/astral_bench.hpp) on the real library; recall@10 equal
#               to `astral bench`'s, the C++ fixture bit-identical to Go's
# Needs: g++, clang++, python3, cmake, go; gcc-mingw-w64-x86-64 / g++-mingw-w64-x86-64
# (Win64 compile, DLL) and mono-mcs (Build.cs), each step skipped without them.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH

plugin=unreal/AstralPlugin
stub=unreal/stubcheck
work=build/unreal
logs=$work/logs
mkdir -p "$logs"
work=$(cd "$work" && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
source scripts/steps.sh

table_functions() {
  sed -n '/#define ASTRAL_PLUGIN_FUNCTIONS/,/^$/p' "$plugin/Source/AstralPlugin/Private/AstralApi.h" |
    grep -oE 'X\(astral_[a-z0-9_]+\)' | sed -E 's/X\((.*)\)/\1/'
}

headers() {
  local h
  for h in include/astral.h include/astral.hpp examples/cpp/astral_bench.hpp; do
    cmp "$h" "$plugin/Source/ThirdParty/AstralLibrary/include/${h##*/}" ||
      { echo "staged ${h##*/} differs from $h"; exit 1; }
  done
  # The plugin keeps them in git, so a checkout compiles: the staging must
  # have found the committed copies current.
  [ -z "$(git status --porcelain -- "$plugin/Source/ThirdParty/AstralLibrary/include")" ] ||
    { echo "the plugin's committed headers were stale: commit what the staging copied"; exit 1; }
  echo "NOTE: 3 staged headers identical to include/ and examples/cpp/, and to the plugin's committed copies"
}

rules() {
  local env=$work/rules.env
  : >"$env"
  if ! command -v mcs >/dev/null 2>&1 || ! command -v mono >/dev/null 2>&1; then
    python3 "$stub/check_plugin.py" "$plugin"
    echo "NOTE: .uplugin checked; Build.cs NOT compiled: mcs/mono missing (apt-get install mono-mcs)"
    exit 77
  fi
  mcs -nologo -warnaserror -out:"$work/BuildRulesCheck.exe" "$stub/ubt/UnrealBuildTool.cs" \
    "$stub/ubt/BuildRulesCheck.cs" "$plugin/Source/ThirdParty/AstralLibrary/AstralLibrary.Build.cs" \
    "$plugin/Source/AstralPlugin/AstralPlugin.Build.cs"
  mono "$work/BuildRulesCheck.exe" "$plugin/Source" >"$work/rules.tsv"
  cat "$work/rules.tsv"
  python3 "$stub/check_plugin.py" "$plugin" --rules "$work/rules.tsv" --env "$env" --require Linux,Win64
  echo "NOTE: uplugin ok; Build.cs compiled by mcs, evaluated for Win64/Linux/Mac/LinuxArm64"
}

compile() {
  set -a
  # shellcheck disable=SC1090,SC1091
  [ -s "$work/rules.env" ] && . "$work/rules.env"
  set +a
  "$stub/compile.sh" --work "$work/stubcheck"
  local n
  n=$(find "$plugin/Source/AstralPlugin" -name '*.cpp' | wc -l)
  local missing=
  command -v clang++ >/dev/null 2>&1 || missing+=" clang++"
  command -v x86_64-w64-mingw32-g++-posix >/dev/null 2>&1 || missing+=" mingw-w64-g++"
  echo "NOTE: $n .cpp alone (g++, editor and Shipping game) and as one unity file (clang++ Linux/Mac, mingw Win64) + signatures.cpp x g++/clang++/mingw, -fno-exceptions -fno-rtti -Wundef -Werror${missing:+ (SKIPPED:$missing)}; stand-ins match the documented signatures; unity objects call no astral_* directly; --full: every file alone for every target"
}

negative() {
  python3 "$stub/negative.py" --work "$work/negative"
  echo "NOTE: $(tail -n 1 "$logs/negative.log" | sed 's/^negative: //')"
}

uht_lint() {
  python3 "$stub/uht_lint.py" "$plugin/Source/AstralPlugin"
  python3 "$stub/uht_lint.py" --expectations "$stub/lint_fixtures"
  local marked
  marked=$(grep -rhoE '// expect: [a-z, -]+' "$stub/lint_fixtures" | wc -l)
  echo "NOTE: plugin clean; $marked marked violations in lint_fixtures/ all flagged, nothing else"
}

scripts() {
  local sh=$plugin/Scripts/run_automation.sh bat=$plugin/Scripts/run_automation.bat
  bash -n "$sh" "$plugin/Scripts/build_libastral.sh"
  grep -q -- '-ExecCmds="Automation RunTests $filter; Quit" -unattended -nullrhi' "$sh"
  grep -q -- '-ExecCmds="Automation RunTests %FILTER%; Quit" -unattended -nullrhi' "$bat"
  # The .bat must keep CRLF line ends for cmd.exe.
  [ "$(grep -c $'\r$' "$bat")" -eq "$(wc -l <"$bat")" ] || { echo "$bat lost its CRLF line ends"; exit 1; }

  # A stand-in editor prints what the real one logs; the script must read it right.
  local fake=$work/fake-editor project=$work/fake/Fake.uproject
  mkdir -p "$(dirname "$project")"
  : >"$project"
  cat >"$fake" <<'FAKE'
#!/usr/bin/env bash
printf '%s\n' "$@" >"$FAKE_ARGS"
case $FAKE_MODE in
pass) echo "LogAutomationController: Display: Test Completed. Result={Success} Name={At10} Path={Astral.Recall.At10}" ;;
fail) echo "LogAutomationController: Display: Test Completed. Result={Success} Name={At10} Path={Astral.Recall.At10}"
      echo "LogAutomationController: Error: Test Completed. Result={Fail} Name={P50} Path={Astral.Latency.P50}" ;;
none) echo "LogInit: Display: nothing ran" ;;
esac
FAKE
  chmod +x "$fake"
  export FAKE_ARGS=$work/fake-args.txt
  FAKE_MODE=pass "$sh" "$fake" "$project" >/dev/null
  grep -qx -- '-ExecCmds=Automation RunTests Astral; Quit' "$FAKE_ARGS"
  grep -qx -- '-unattended' "$FAKE_ARGS"
  grep -qx -- '-nullrhi' "$FAKE_ARGS"
  if FAKE_MODE=fail "$sh" "$fake" "$project" >/dev/null; then echo "a failed test was not reported"; exit 1; fi
  if FAKE_MODE=none "$sh" "$fake" "$project" >/dev/null; then echo "a run without tests was not reported"; exit 1; fi
  echo "NOTE: RunTests line in .sh and .bat; .sh passes, fails a failed test, fails an empty run"
}

stage() {
  make -s unreal-plugin
  local so=$plugin/Binaries/ThirdParty/Astral/Linux/libastral.so dll=$plugin/Binaries/ThirdParty/Astral/Win64/astral.dll
  local functions f n
  mapfile -t functions < <(table_functions)
  n=${#functions[@]}
  # As many as AstralApi.h lists today: a table that lost or gained entries
  # without this count is a mistake in one or the other.
  local expected=37
  [ "$n" -eq "$expected" ] || { echo "read $n functions from ASTRAL_PLUGIN_FUNCTIONS in AstralApi.h, expected $expected"; exit 1; }
  for f in "${functions[@]}"; do
    nm -D --defined-only "$so" | awk '{print $NF}' | grep -qx "$f" || { echo "$so lacks $f"; exit 1; }
  done
  g++ -std=c++17 -Wall -Wextra -Werror -Iinclude "$stub/load_test.cpp" -ldl -o "$work/load_test"
  "$work/load_test" "$so" "${functions[@]}"
  local dll_note="no DLL (no mingw-w64)"
  if [ -f "$dll" ] && command -v x86_64-w64-mingw32-objdump >/dev/null 2>&1; then
    local exports
    exports=$(x86_64-w64-mingw32-objdump -p "$dll" | sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p')
    for f in "${functions[@]}"; do
      grep -qE "\] $f\$" <<<"$exports" || { echo "$dll does not export $f"; exit 1; }
    done
    dll_note="Win64/astral.dll exports them"
  fi
  echo "NOTE: Linux/libastral.so exports the $n table functions, loads by path and answers through them; $dll_note"
}

package() {
  local version zip scratch unpacked f nogo=
  version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["VersionName"])' "$plugin/AstralPlugin.uplugin")
  zip=build/unreal-plugin/AstralPlugin-$version.zip
  [ -f "$zip" ] || { echo "$zip missing: the stage step packs it"; exit 1; }
  scratch=$work/package
  rm -rf "$scratch"
  mkdir -p "$scratch"
  python3 -m zipfile -e "$zip" "$scratch"
  unpacked=$scratch/AstralPlugin
  # Every file git tracks in the plugin, and what the staging adds, byte for byte.
  local lib=Binaries/ThirdParty/Astral
  while read -r f; do
    cmp -s "$plugin/$f" "$unpacked/$f" || { echo "zip: $f missing or different"; exit 1; }
  done < <(git ls-files "$plugin" | sed "s|^$plugin/||"; echo "$lib/Linux/libastral.so"; echo "$lib/Win64/astral.dll")
  for f in AstralPlugin.uplugin Config/FilterPlugin.ini README.md Scripts/build_libastral.sh \
    Source/ThirdParty/AstralLibrary/AstralLibrary.Build.cs Source/AstralPlugin/AstralPlugin.Build.cs \
    Source/ThirdParty/AstralLibrary/include/astral.h Source/ThirdParty/AstralLibrary/include/astral.hpp \
    Source/ThirdParty/AstralLibrary/include/astral_bench.hpp; do
    [ -f "$unpacked/$f" ] || { echo "zip lacks $f"; exit 1; }
  done
  if unzip -l "$zip" 2>/dev/null | grep -qE 'AstralPlugin/(Intermediate|Saved)/'; then echo "zip carries build output"; exit 1; fi
  # FilterPlugin.ini names what travels outside Source/ and Binaries/.
  grep -qx '\[FilterPlugin\]' "$unpacked/Config/FilterPlugin.ini"
  grep -qx '/README.md' "$unpacked/Config/FilterPlugin.ini"
  grep -qx '/Scripts/...' "$unpacked/Config/FilterPlugin.ini"

  # A PATH without Go, as on a game team's machine.
  local d
  for d in ${PATH//:/ }; do [ -x "$d/go" ] || nogo=${nogo:+$nogo:}$d; done
  PATH=$nogo bash -c '! command -v go >/dev/null' || { echo "go still on PATH"; exit 1; }
  if ! command -v mcs >/dev/null 2>&1; then
    echo "NOTE: zip has every file; Build.cs NOT evaluated: mcs/mono missing"
    exit 77
  fi
  local exe=$scratch/BuildRulesCheck.exe
  PATH=$nogo mcs -nologo -warnaserror -out:"$exe" "$stub/ubt/UnrealBuildTool.cs" "$stub/ubt/BuildRulesCheck.cs" \
    "$unpacked/Source/ThirdParty/AstralLibrary/AstralLibrary.Build.cs" "$unpacked/Source/AstralPlugin/AstralPlugin.Build.cs"
  PATH=$nogo mono "$exe" "$unpacked/Source" >"$scratch/rules.tsv"
  PATH=$nogo python3 "$stub/check_plugin.py" "$unpacked" --rules "$scratch/rules.tsv" --require Linux,Win64
  "$work/load_test" "$unpacked/$lib/Linux/libastral.so" $(table_functions)
  # Without the Linux library the Build.cs stops, naming it and the command.
  rm "$unpacked/$lib/Linux/libastral.so"
  PATH=$nogo mono "$exe" "$unpacked/Source" >"$scratch/rules-missing.tsv"
  grep -q $'^Linux\tAstralLibrary\tError\tAstral plugin: Binaries/ThirdParty/Astral/Linux/libastral.so is missing .*make unreal-plugin' "$scratch/rules-missing.tsv"
  PATH=$nogo python3 "$stub/check_plugin.py" "$unpacked" --rules "$scratch/rules-missing.tsv" --require Win64
  echo "NOTE: $zip unpacked: $(find "$unpacked" -type f | wc -l) files, all there; without Go, Build.cs passes for Linux/Win64 and stops naming the missing file (Mac dylib; Linux .so once deleted)"
}

async_gc() {
  cmake -S . -B build/cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build/cmake --target unreal_async_gc -j "$jobs"
  ctest --test-dir build/cmake -R '^unreal_async_gc$' --output-on-failure -V | tee "$work/async_gc.txt"
  grep -q 'unreal_async_gc: PASS' "$work/async_gc.txt"
  echo "NOTE: module start-up + async nodes on the stand-in engine: $(grep -cE '^[0-9]+: ok: ' "$work/async_gc.txt") checks pass (rooted without a game instance, GC in flight, second Activate, Cancel, exact errors, Add Memories, Find Nearest (Batch) with a filter, Save, Load, Recall Memories, a budget)"
}

nodes() {
  cmake -S . -B build/cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build/cmake --target unreal_nodes -j "$jobs"
  ctest --test-dir build/cmake -R '^unreal_nodes$' --output-on-failure -V | tee "$work/nodes.txt"
  grep -q 'unreal_nodes: PASS' "$work/nodes.txt"
  echo "NOTE: scoped-query and key nodes on the real library: $(grep -cE '^[0-9]+: ok: ' "$work/nodes.txt") checks pass (tags by name and Gameplay Tag, owners, payloads, every filter, save/load, Upsert, Remove, Clear, Contains, Count, Get Memory Vector, Release; Recall Memories by recency and importance, Touch, Set Importance, times kept by save/load, the budget pins; the Automation tests' exact log lines)"
}

measure() {
  cmake -S . -B build/cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build/cmake --target unreal_measure -j "$jobs"
  ctest --test-dir build/cmake -R '^unreal_measure_' --output-on-failure -V | tee "$work/measure.txt"
  grep -q 'unreal_measure_reference .*Passed' "$work/measure.txt"
  local recall p50 bench
  bench=$(sed -nE 's/.*astral bench recall_at_k: ([0-9.]+).*/\1/p' "$work/measure.txt" | tail -n 1)
  recall=$(grep -E 'recall@10 ' "$work/measure.txt" | tail -n 1 | sed -E 's/^[0-9]+: //')
  p50=$(grep -E '^[0-9]+: p50 ' "$work/measure.txt" | tail -n 1 | sed -E 's/^[0-9]+: p50 ([0-9.]+ us).*/\1/')
  echo "NOTE: reference ${recall} = astral bench ${bench}; p50 ${p50} (1 worker + caller); fixture = Go's bit for bit"
}

step stage stage
step package package
step headers headers
step rules rules
step compile compile
step negative negative
step uht-lint uht_lint
step scripts scripts
step async-gc async_gc
step nodes nodes
step measure measure

summary test-unreal
