// Builds each ModuleRules class of the plugin for each platform and prints
// what UBT would take from it, one "key<TAB>value" per line, for
// scripts/test-unreal.sh to check; a rules file that stops the build (a
// BuildException) prints "Error<TAB>message" for its module instead. Not UBT
// code.
using System;
using System.IO;
using UnrealBuildTool;

public static class BuildRulesCheck
{
	public static int Main(string[] Args)
	{
		if (Args.Length < 1)
		{
			Console.Error.WriteLine("usage: BuildRulesCheck.exe SOURCE_DIR [PLATFORM...]");
			return 2;
		}
		string Source = Path.GetFullPath(Args[0]);
		ModuleRules.NextPluginDirectory = Path.GetFullPath(Path.Combine(Source, ".."));
		string[] Platforms = new[] { "Win64", "Linux", "Mac", "LinuxArm64" };
		if (Args.Length > 1)
		{
			Platforms = new string[Args.Length - 1];
			Array.Copy(Args, 1, Platforms, 0, Platforms.Length);
		}
		foreach (string Name in Platforms)
		{
			ReadOnlyTargetRules Target = new ReadOnlyTargetRules(UnrealTargetPlatform.Parse(Name));
			Print(Name, "AstralLibrary", Path.Combine(Source, "ThirdParty", "AstralLibrary"), () => new AstralLibrary(Target));
			Print(Name, "AstralPlugin", Path.Combine(Source, "AstralPlugin"), () => new AstralPlugin(Target));
		}
		return 0;
	}

	private static void Print(string Platform, string Module, string Directory, Func<ModuleRules> Make)
	{
		ModuleRules.NextModuleDirectory = Directory;
		string Prefix = Platform + "\t" + Module + "\t";
		ModuleRules Rules;
		try
		{
			Rules = Make();
		}
		catch (BuildException Error)
		{
			Console.WriteLine(Prefix + "Error\t" + Error.Message);
			return;
		}
		Console.WriteLine(Prefix + "Type\t" + Rules.Type);
		foreach (string S in Rules.PublicSystemIncludePaths) Console.WriteLine(Prefix + "PublicSystemIncludePath\t" + S);
		foreach (string S in Rules.PublicIncludePaths) Console.WriteLine(Prefix + "PublicIncludePath\t" + S);
		foreach (string S in Rules.PublicDefinitions) Console.WriteLine(Prefix + "PublicDefinition\t" + S);
		foreach (string S in Rules.RuntimeDependencies.Paths) Console.WriteLine(Prefix + "RuntimeDependency\t" + S);
		foreach (string S in Rules.PublicAdditionalLibraries) Console.WriteLine(Prefix + "PublicAdditionalLibrary\t" + S);
		foreach (string S in Rules.PublicDependencyModuleNames) Console.WriteLine(Prefix + "PublicDependency\t" + S);
		foreach (string S in Rules.PrivateDependencyModuleNames) Console.WriteLine(Prefix + "PrivateDependency\t" + S);
	}
}
