// libastral, the C ABI of Astral, as an external module: its headers, and the
// shared library staged by `make unreal-plugin` (Scripts/build_libastral.sh).
// Nothing is linked: the AstralPlugin module loads the library at start-up
// through a function table typed from astral.h, so Windows needs no import
// library.

using System.IO;
using UnrealBuildTool;

public class AstralLibrary : ModuleRules
{
	// How a missing library is staged: Linux and Win64 build on Linux (Go and
	// mingw-w64); the Mac dylib needs macOS's SDK, so only a Mac builds it.
	private const string StageCommand = "run `make unreal-plugin` in the Astral repository (Go 1.26, mingw-w64 for Win64), or use the plugin zip it packs";
	private const string StageCommandMac = "run Scripts/build_libastral.sh on a Mac (Go 1.26, Xcode command line tools) and sign the dylib (README, \"Mac\"); it cannot be cross-built";

	public AstralLibrary(ReadOnlyTargetRules Target) : base(Target)
	{
		Type = ModuleType.External;

		// astral.h, astral.hpp and astral_bench.hpp, kept in the plugin (copies
		// of the Astral repository's, refreshed by the staging).
		string Include = Path.Combine(ModuleDirectory, "include");
		foreach (string Header in new string[] { "astral.h", "astral.hpp", "astral_bench.hpp" })
		{
			RequireFile(Path.Combine(Include, Header), "Source/ThirdParty/AstralLibrary/include/" + Header, StageCommand);
		}
		PublicSystemIncludePaths.Add(Include);

		string LibraryFile = null;
		string Command = StageCommand;
		if (Target.Platform == UnrealTargetPlatform.Win64)
		{
			LibraryFile = "Win64/astral.dll";
		}
		else if (Target.Platform == UnrealTargetPlatform.Linux)
		{
			LibraryFile = "Linux/libastral.so";
		}
		else if (Target.Platform == UnrealTargetPlatform.Mac)
		{
			LibraryFile = "Mac/libastral.dylib";
			Command = StageCommandMac;
		}

		if (LibraryFile != null)
		{
			// Relative to the plugin's base directory, which is where a
			// packaged game keeps it too.
			string RelativePath = "Binaries/ThirdParty/Astral/" + LibraryFile;
			RequireFile(Path.Combine(PluginDirectory, RelativePath), RelativePath, Command);
			RuntimeDependencies.Add("$(PluginDir)/" + RelativePath);
			PublicDefinitions.Add("ASTRAL_LIBRARY_PATH=\"" + RelativePath + "\"");
		}
	}

	// Stops the build at once, naming the file, instead of a compile error
	// ("astral.h not found") or a plugin that reports Astral unavailable.
	private void RequireFile(string FullPath, string PluginPath, string Command)
	{
		if (!File.Exists(FullPath))
		{
			throw new BuildException("Astral plugin: {0} is missing ({1}): {2}.", PluginPath, FullPath, Command);
		}
	}
}
