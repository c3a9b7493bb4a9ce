// libastral, the C ABI of Astral, as an external module: its headers, and the
// shared library staged by Scripts/build_libastral.sh. Nothing is linked: the
// AstralPlugin module loads the library at start-up through a function table
// typed from astral.h, so Windows needs no import library.

using System.IO;
using UnrealBuildTool;

public class AstralLibrary : ModuleRules
{
	public AstralLibrary(ReadOnlyTargetRules Target) : base(Target)
	{
		Type = ModuleType.External;

		// astral.h, astral.hpp and astral_bench.hpp, copied from the Astral
		// repository's include/ by Scripts/build_libastral.sh.
		PublicSystemIncludePaths.Add(Path.Combine(ModuleDirectory, "include"));

		string LibraryFile = null;
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
		}

		if (LibraryFile != null)
		{
			// Relative to the plugin's base directory, which is where a
			// packaged game keeps it too.
			string RelativePath = "Binaries/ThirdParty/Astral/" + LibraryFile;
			RuntimeDependencies.Add("$(PluginDir)/" + RelativePath);
			PublicDefinitions.Add("ASTRAL_LIBRARY_PATH=\"" + RelativePath + "\"");
		}
	}
}
