// The Astral runtime module: Blueprint library, async nodes, the thread-safe
// FAstralNativeIndex, settings and Automation tests over libastral.

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
			// An engine module, not a plugin: nothing to enable in the .uplugin.
			// Public because AstralTypes.h holds FGameplayTagContainer fields.
			"GameplayTags",
		});

		PrivateDependencyModuleNames.AddRange(new string[]
		{
			"Projects", // IPluginManager: where the staged library lives
			"AstralLibrary",
		});
	}
}
