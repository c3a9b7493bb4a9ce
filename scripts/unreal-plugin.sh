#!/usr/bin/env bash
# `make unreal-plugin`: stages libastral and its headers into
# unreal/AstralPlugin (Scripts/build_libastral.sh: on Linux the Linux .so and
# the Win64 DLL, cross-built with mingw-w64; on a Mac the universal dylib)
# and packs the plugin as OUTDIR/AstralPlugin-<VersionName>.zip: one
# AstralPlugin/ folder holding the .uplugin, Source/ (the headers included),
# Config/FilterPlugin.ini, README.md, Scripts/ and
# Binaries/ThirdParty/Astral/<Platform>/, the layout a game vendors under
# Plugins/ and RunUAT BuildPlugin takes. Nothing Unreal builds (Intermediate/,
# Saved/, module binaries) goes in.
# Usage: scripts/unreal-plugin.sh [OUTDIR]   (default build/unreal-plugin)
set -euo pipefail
cd "$(dirname "$0")/.."
plugin=unreal/AstralPlugin
out=${1:-build/unreal-plugin}
mkdir -p "$out"

"$plugin/Scripts/build_libastral.sh" .

libs=$plugin/Binaries/ThirdParty/Astral
if [ "$(uname -s)" = Linux ]; then
  for f in Linux/libastral.so Win64/astral.dll; do
    [ -f "$libs/$f" ] || { echo "unreal-plugin: $libs/$f was not built (see above)" >&2; exit 1; }
  done
fi
if [ ! -f "$libs/Mac/libastral.dylib" ]; then
  echo "unreal-plugin: NOTE no Mac/libastral.dylib: it needs macOS's SDK, so only a Mac builds it" \
    "(Scripts/build_libastral.sh there; sign it: plugin README, \"Mac\"). Put it in $libs/Mac/ and run" \
    "this again to ship it; without it the plugin builds for Win64 and Linux, and a Mac build stops" \
    "naming the missing file."
fi

python3 - "$plugin" "$out" <<'PY'
import json, os, stat, sys, zipfile

plugin, out = sys.argv[1], sys.argv[2]
with open(os.path.join(plugin, "AstralPlugin.uplugin"), encoding="utf-8") as f:
    version = json.load(f)["VersionName"]
skip = {"Intermediate", "Saved", "Binaries"}  # Binaries: only ThirdParty/Astral, below
files = []
for root, dirs, names in os.walk(plugin):
    rel = os.path.relpath(root, plugin)
    if rel == ".":
        dirs[:] = [d for d in dirs if d not in skip]
    dirs.sort()
    files += [os.path.normpath(os.path.join(rel, n)) for n in sorted(names)]
for platform, name in (("Linux", "libastral.so"), ("Mac", "libastral.dylib"), ("Win64", "astral.dll")):
    rel = os.path.join("Binaries", "ThirdParty", "Astral", platform, name)
    if os.path.isfile(os.path.join(plugin, rel)):
        files.append(rel)

path = os.path.join(out, "AstralPlugin-%s.zip" % version)
tmp = path + ".tmp"
# Fixed times and modes: the same tree packs to the same bytes.
with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
    for rel in sorted(files):
        full = os.path.join(plugin, rel)
        info = zipfile.ZipInfo("AstralPlugin/" + rel.replace(os.sep, "/"), date_time=(1980, 1, 1, 0, 0, 0))
        executable = os.stat(full).st_mode & stat.S_IXUSR
        info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(full, "rb") as f:
            z.writestr(info, f.read())
os.replace(tmp, path)
print("unreal-plugin: %s (%d files)" % (path, len(files)))
PY
