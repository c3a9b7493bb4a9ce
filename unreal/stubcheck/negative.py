#!/usr/bin/env python3
"""Shows that compile.sh catches real mistakes: each case below breaks a copy
of the plugin's Source/ in one way, and compiling it must fail with the
expected diagnostic. Run by scripts/test-unreal.sh.

Usage: negative.py [--source DIR] [--work DIR]
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (name, file under Source/, text, replacement, file to compile or "unity", diagnostic regex)
CASES = [
    ("wrong argument count through the typed table",
     "AstralPlugin/Private/AstralPlugin.cpp",
     "UE::Astral::GApi.astral_version_number()",
     "UE::Astral::GApi.astral_version_number(0)",
     "AstralPlugin/Private/AstralPlugin.cpp",
     r"too many arguments"),
    ("wrong argument type through the typed table",
     "AstralPlugin/Private/AstralApi.cpp",
     "astral::last_error();",
     "std::string(UE::Astral::GApi.astral_status_string(nullptr));",
     "AstralPlugin/Private/AstralApi.cpp",
     r"invalid conversion from .std::nullptr_t|cannot convert .std::nullptr_t"),
    ("Unreal's uint64 where the C ABI's uint64_t is expected",
     "AstralPlugin/Private/AstralBlueprintLibrary.cpp",
     "TArray<uint64_t> ToNativeIds(const TArray<int64>& Ids)\n\t{\n\t\tTArray<uint64_t> Native;",
     "TArray<uint64_t> ToNativeIds(const TArray<int64>& Ids)\n\t{\n\t\tTArray<uint64> Native;",
     "AstralPlugin/Private/AstralBlueprintLibrary.cpp",
     r"invalid initialization of reference|cannot convert|could not convert|no matching function"),
    ("an FString passed to %s without *",
     "AstralPlugin/Private/AstralApi.cpp",
     'TEXT("%s"), *Message);',
     'TEXT("%s"), Message);',
     "AstralPlugin/Private/AstralApi.cpp",
     r"format string and arguments disagree"),
    ("%d given an int64 in FString::Printf",
     "AstralPlugin/Private/Tests/AstralMeasureTests.cpp",
     "%s: %lld vectors x %d, %d queries",
     "%s: %d vectors x %d, %d queries",
     "AstralPlugin/Private/Tests/AstralMeasureTests.cpp",
     r"UE_FORMAT_STRING_DOES_NOT_MATCH_ITS_ARGUMENTS"),
    ("the pre-5.5 spelling of the automation context mask",
     "AstralPlugin/Private/Tests/AstralMeasureTests.cpp",
     "EAutomationTestFlags::EditorContext | EAutomationTestFlags::ClientContext | EAutomationTestFlags::ProductFilter)",
     "EAutomationTestFlags::ApplicationContextMask | EAutomationTestFlags::ProductFilter)",
     "AstralPlugin/Private/Tests/AstralMeasureTests.cpp",
     r"ApplicationContextMask. is not a member of .EAutomationTestFlags"),
    ("an automation test without a filter flag",
     "AstralPlugin/Private/Tests/AstralFunctionalTests.cpp",
     "EAutomationTestFlags::EditorContext | EAutomationTestFlags::ProductFilter)",
     "EAutomationTestFlags::EditorContext)",
     "AstralPlugin/Private/Tests/AstralFunctionalTests.cpp",
     r"exactly 1 filter type"),
    ("a missing include (AsyncTask without Async/Async.h)",
     "AstralPlugin/Private/AstralNativeIndex.cpp",
     '#include "Async/Async.h"\n',
     "",
     "AstralPlugin/Private/AstralNativeIndex.cpp",
     r"AsyncTask. was not declared"),
    ("a payload size read into a 32-bit count (astral.hpp wants size_t)",
     "AstralPlugin/Private/AstralNativeIndex.cpp",
     "\tunsigned char Buffer[ASTRAL_MAX_PAYLOAD];\n\tsize_t Size = 0;\n",
     "\tunsigned char Buffer[ASTRAL_MAX_PAYLOAD];\n\tuint32_t Size = 0;\n",
     "AstralPlugin/Private/AstralNativeIndex.cpp",
     r"cannot bind|invalid initialization of reference|no matching (member )?function"),
    ("a UObject created without UPackage being complete",
     "AstralPlugin/Private/AstralAsyncQuery.cpp",
     '#include "UObject/Package.h"\n',
     "",
     "AstralPlugin/Private/AstralAsyncQuery.cpp",
     r"cannot convert .UPackage\*. to .UObject\*"),
    ("a move-only callable where TFunction must copy it",
     "AstralPlugin/Private/Tests/AstralFunctionalTests.cpp",
     "FFunctionLatentCommand([this, Good, Bad, Expected, Deadline]()",
     "FFunctionLatentCommand([this, Good, Bad, Expected, Deadline, Owned = FAstralQueryCallback()]()",
     "AstralPlugin/Private/Tests/AstralFunctionalTests.cpp",
     r"TFunction needs a copyable callable|use of deleted function"),
    ("a direct call that bypasses the function table (links against libastral)",
     "AstralPlugin/Private/AstralPlugin.cpp",
     "UE::Astral::GApi.astral_version_number()",
     "::astral_version_number()",
     "unity",
     r"bypassing the function table:\s+astral_version_number"),
]


def check(source, work_root, i, case):
    """Breaks a copy of source as case says and compiles it; returns
    (failed, report)."""
    name, path, old, new, target, expected = case
    work = os.path.join(work_root, str(i))
    copy = os.path.join(work, "Source")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(source, copy)
    full = os.path.join(copy, path)
    with open(full, encoding="utf-8") as f:
        text = f.read()
    if text.count(old) < 1:
        return True, "BROKEN   %s: %r not found in %s (update the case)" % (name, old, path)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new, 1))
    cmd = [os.path.join(HERE, "compile.sh"), "--source", copy, "--work", os.path.join(work, "build")]
    cmd += ["--unity-only"] if target == "unity" else ["--only", os.path.join(copy, target)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    output = run.stdout + run.stderr
    if run.returncode != 0 and re.search(expected, output):
        first = expected.split(":")[0]
        line = next((l.strip() for l in output.splitlines() if re.search(expected, l) or re.search(first, l)), "")
        return False, "caught   %s\n         %s" % (name, line[:150])
    return True, "MISSED   %s (exit %d)\n%s" % (name, run.returncode, output[-2000:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", default=os.path.join(HERE, "..", "AstralPlugin", "Source"))
    ap.add_argument("--work", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "astral-stubcheck-negative"))
    args = ap.parse_args()
    source = os.path.abspath(args.source)
    # Each case has its own copy and work folder: they compile side by side,
    # one per CPU, and report in order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda ic: check(source, args.work, *ic), enumerate(CASES, 1)))
    failures = 0
    for failed, report in results:
        failures += failed
        print(report)
    print("negative: %d of %d mistakes caught" % (len(CASES) - failures, len(CASES)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
