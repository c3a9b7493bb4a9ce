#!/usr/bin/env python3
"""Checks the Astral plugin's descriptor and build rules without Unreal.

  check_plugin.py PLUGIN_DIR [--rules RULES.tsv] [--env OUT.env]
                  [--require Linux,Win64]

- AstralPlugin.uplugin: FileVersion 3, engine 5.7, SupportedTargetPlatforms
  and one Runtime module with PlatformAllowList both Win64, Linux, Mac, whose
  Source/<Name>/<Name>.Build.cs exists and declares the class <Name>.
- RULES.tsv (BuildRulesCheck.exe's output: the Build.cs files compiled by mcs
  and evaluated per platform): AstralLibrary is External, puts its include/
  (holding astral.h, astral.hpp, astral_bench.hpp) on the system include
  path, and for each allowed platform stages exactly one library as
  $(PluginDir)/<path> and defines ASTRAL_LIBRARY_PATH="<path>" with the same
  path, under Binaries/ThirdParty/Astral/<Platform>/; AstralPlugin depends
  on AstralLibrary, Projects and DeveloperSettings. Where a header or the
  platform's library is missing from PLUGIN_DIR, AstralLibrary's Build.cs
  must instead stop (an Error row) naming the file and the command that
  stages it (`make unreal-plugin`; for Mac, build_libastral.sh on a Mac).
- --require: the platforms whose library must be staged (no Error row).
- --env writes ASTRAL_PATH_<PLATFORM>=<path> lines for compile.sh, so the
  stand-in compile uses the definitions the Build.cs really produces.
"""

import json
import os
import re
import sys

PLATFORMS = ["Win64", "Linux", "Mac"]
HEADERS = ("astral.h", "astral.hpp", "astral_bench.hpp")
STAGE_COMMANDS = {"Win64": "make unreal-plugin", "Linux": "make unreal-plugin", "Mac": "Scripts/build_libastral.sh on a Mac"}
LIBRARY_FILES = {"Win64": "astral.dll", "Linux": "libastral.so", "Mac": "libastral.dylib"}


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    plugin = os.path.abspath(argv[0])
    rules_path = argv[argv.index("--rules") + 1] if "--rules" in argv else None
    env_path = argv[argv.index("--env") + 1] if "--env" in argv else None
    required = argv[argv.index("--require") + 1].split(",") if "--require" in argv else []
    problems = []
    notes = []

    def need(ok, message):
        if not ok:
            problems.append(message)
        return ok

    with open(os.path.join(plugin, "AstralPlugin.uplugin"), encoding="utf-8") as f:
        desc = json.load(f)
    need(desc.get("FileVersion") == 3, "FileVersion must be 3")
    need(str(desc.get("EngineVersion", "")).startswith("5.7"), "EngineVersion must be 5.7.x")
    need(sorted(desc.get("SupportedTargetPlatforms", [])) == sorted(PLATFORMS), "SupportedTargetPlatforms must be exactly %s" % PLATFORMS)
    modules = desc.get("Modules", [])
    if need(len(modules) == 1, "exactly one module expected, found %d" % len(modules)):
        m = modules[0]
        name = m.get("Name", "")
        need(m.get("Type") == "Runtime", "the module must be Runtime")
        need(m.get("LoadingPhase", "Default") == "Default", "the module loads in the Default phase (settings are read at start-up)")
        need(sorted(m.get("PlatformAllowList", [])) == sorted(PLATFORMS), "PlatformAllowList must be exactly %s" % PLATFORMS)
        build_cs = os.path.join(plugin, "Source", name, name + ".Build.cs")
        if need(os.path.isfile(build_cs), "missing %s" % build_cs):
            with open(build_cs, encoding="utf-8") as f:
                need(re.search(r"public class %s : ModuleRules" % re.escape(name), f.read()), "%s must declare class %s" % (build_cs, name))
        notes.append("uplugin: FileVersion 3, engine %s, module %s (Runtime; %s)" % (desc["EngineVersion"], name, ", ".join(m["PlatformAllowList"])))

    paths = {}
    if rules_path:
        rows = []
        with open(rules_path, encoding="utf-8") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 4:
                    rows.append(parts)

        def values(platform, module, key):
            return [v for p, mo, k, v in rows if (p, mo, k) == (platform, module, key)]

        include_dir = os.path.join(plugin, "Source", "ThirdParty", "AstralLibrary", "include")
        missing_headers = [h for h in HEADERS if not os.path.isfile(os.path.join(include_dir, h))]
        stopped = []
        for platform in PLATFORMS + ["LinuxArm64"]:
            errors = values(platform, "AstralLibrary", "Error")
            library = None
            if platform in PLATFORMS:
                library = "Binaries/ThirdParty/Astral/%s/%s" % (platform, LIBRARY_FILES[platform])
            if missing_headers:
                missing = "Source/ThirdParty/AstralLibrary/include/" + missing_headers[0]
                command = STAGE_COMMANDS["Linux"]
            elif library and not os.path.isfile(os.path.join(plugin, library)):
                missing, command = library, STAGE_COMMANDS[platform]
            else:
                missing = None
            if missing:
                need(platform not in required, "%s: %s is not staged" % (platform, missing))
                if need(len(errors) == 1, "%s: %s is missing, so Build.cs must stop with one error; got %s" % (platform, missing, errors or "none")):
                    need(errors[0].startswith("Astral plugin: %s is missing " % missing) and command in errors[0],
                         "%s: Build.cs's error must name %s and `%s`: %s" % (platform, missing, command, errors[0]))
                    stopped.append("%s (%s)" % (platform, missing))
                continue
            need(not errors, "%s: Build.cs stopped: %s" % (platform, errors))
            need(values(platform, "AstralLibrary", "Type") == ["External"], "%s: AstralLibrary must be External" % platform)
            includes = values(platform, "AstralLibrary", "PublicSystemIncludePath")
            if need(len(includes) == 1, "%s: one system include path expected" % platform):
                for header in HEADERS:
                    need(os.path.isfile(os.path.join(includes[0], header)), "%s: %s missing from %s" % (platform, header, includes[0]))
            private = values(platform, "AstralPlugin", "PrivateDependency")
            public = values(platform, "AstralPlugin", "PublicDependency")
            for dep in ("AstralLibrary", "Projects"):
                need(dep in private, "%s: AstralPlugin must depend on %s" % (platform, dep))
            # GameplayTags: AstralTypes.h (public) holds FGameplayTagContainer fields.
            for dep in ("Core", "CoreUObject", "Engine", "DeveloperSettings", "GameplayTags"):
                need(dep in public, "%s: AstralPlugin must publicly depend on %s" % (platform, dep))
            need(not values(platform, "AstralLibrary", "PublicAdditionalLibrary"), "%s: nothing may be linked (the library is loaded at run time)" % platform)

            defs = [d for d in values(platform, "AstralLibrary", "PublicDefinition") if d.startswith("ASTRAL_LIBRARY_PATH=")]
            deps = values(platform, "AstralLibrary", "RuntimeDependency")
            if platform not in PLATFORMS:
                need(not defs and not deps, "%s is not allowed: it must stage nothing" % platform)
                continue
            if not need(len(defs) == 1 and len(deps) == 1, "%s: one ASTRAL_LIBRARY_PATH and one runtime dependency expected" % platform):
                continue
            m = re.match(r'^ASTRAL_LIBRARY_PATH="([^"]+)"$', defs[0])
            if not need(m, "%s: ASTRAL_LIBRARY_PATH must be a quoted string: %s" % (platform, defs[0])):
                continue
            rel = m.group(1)
            need(rel == "Binaries/ThirdParty/Astral/%s/%s" % (platform, LIBRARY_FILES[platform]),
                 "%s: library path %s is not Binaries/ThirdParty/Astral/%s/%s" % (platform, rel, platform, LIBRARY_FILES[platform]))
            need(deps[0] == "$(PluginDir)/" + rel, "%s: runtime dependency %s differs from the loaded path %s" % (platform, deps[0], rel))
            paths[platform] = rel
        notes.append("Build.cs (mcs + mono, per platform): " + "; ".join("%s %s" % (p, paths[p]) for p in PLATFORMS if p in paths))
        if stopped:
            notes.append("Build.cs stops, naming the file and the staging command: " + "; ".join(stopped))

    if env_path:
        with open(env_path, "w", encoding="utf-8") as f:
            for platform, rel in paths.items():
                f.write("ASTRAL_PATH_%s=%s\n" % (platform.upper(), rel))

    for n in notes:
        print(n)
    for p in problems:
        print("PROBLEM: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
