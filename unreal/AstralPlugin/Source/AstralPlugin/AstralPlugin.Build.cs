// The Astral runtime module: Blueprint library, async query node, settings
// and Automation tests over libastral.

using UnrealBuildTool;

public class AstralPlugin : ModuleRules
{
	public AstralPlugin(ReadOnlyTargetRules Target) : base(Target)
	{
		PCHUsage = ModuleRules.PCHUsageMode.UseExplicitOrSharedPCHs;

		PublicDependencyModuleNames.AddRange(new string[]
		{
			"Core",
			"CoreUObject",
			"Engine",
			"DeveloperSettings",
		});

		PrivateDependencyModuleNames.AddRange(new string[]
		{
			"Projects", // IPluginManager: where the staged library lives
			"AstralLibrary",
		});
	}
}
