// Stand-in for the parts of UnrealBuildTool's rules API that the plugin's
// Build.cs files use, with UBT's names, so that mcs compiles them as UBT
// would and BuildRulesCheck can evaluate them per platform. Not UBT code.
using System;
using System.Collections.Generic;

namespace UnrealBuildTool
{
	public sealed class UnrealTargetPlatform
	{
		private readonly string Name;
		private UnrealTargetPlatform(string InName) { Name = InName; }
		public static readonly UnrealTargetPlatform Win64 = new UnrealTargetPlatform("Win64");
		public static readonly UnrealTargetPlatform Linux = new UnrealTargetPlatform("Linux");
		public static readonly UnrealTargetPlatform LinuxArm64 = new UnrealTargetPlatform("LinuxArm64");
		public static readonly UnrealTargetPlatform Mac = new UnrealTargetPlatform("Mac");
		public static readonly UnrealTargetPlatform IOS = new UnrealTargetPlatform("IOS");
		public static readonly UnrealTargetPlatform Android = new UnrealTargetPlatform("Android");
		public static UnrealTargetPlatform Parse(string InName)
		{
			foreach (UnrealTargetPlatform P in new[] { Win64, Linux, LinuxArm64, Mac, IOS, Android })
			{
				if (P.Name == InName) return P;
			}
			throw new ArgumentException("unknown platform " + InName);
		}
		public override string ToString() { return Name; }
	}

	/** UBT's error for a rules file that cannot go on: the build stops with its message. */
	public class BuildException : Exception
	{
		public BuildException(string Format, params object[] Arguments) : base(string.Format(Format, Arguments)) { }
	}

	public enum StagedFileType
	{
		NonUFS,
		UFS,
		DebugNonUFS,
		SystemNonUFS,
	}

	public class RuntimeDependencyList
	{
		public readonly List<string> Paths = new List<string>();
		public void Add(string InPath) { Paths.Add(InPath); }
		public void Add(string InPath, StagedFileType InType) { Paths.Add(InPath); }
		public void Add(string InPath, string InSourcePath, StagedFileType InType = StagedFileType.NonUFS) { Paths.Add(InPath); }
	}

	public class ReadOnlyTargetRules
	{
		public readonly UnrealTargetPlatform Platform;
		public readonly string Name;
		public ReadOnlyTargetRules(UnrealTargetPlatform InPlatform) { Platform = InPlatform; Name = "StubCheckEditor"; }
	}

	public class ModuleRules
	{
		public enum ModuleType
		{
			CPlusPlus,
			External,
		}

		public enum PCHUsageMode
		{
			Default,
			NoPCHs,
			NoSharedPCHs,
			UseSharedPCHs,
			UseExplicitOrSharedPCHs,
		}

		/** Set by the caller before constructing a rules object: UBT takes it from the file's location. */
		public static string NextModuleDirectory = "";
		/** Likewise: the folder of the .uplugin holding the module. */
		public static string NextPluginDirectory = "";

		public readonly ReadOnlyTargetRules Target;
		public ModuleType Type = ModuleType.CPlusPlus;
		public PCHUsageMode PCHUsage = PCHUsageMode.Default;
		public string PrivatePCHHeaderFile = null;
		public bool bEnableExceptions = false;
		public readonly List<string> PublicIncludePaths = new List<string>();
		public readonly List<string> PrivateIncludePaths = new List<string>();
		public readonly List<string> PublicSystemIncludePaths = new List<string>();
		public readonly List<string> PublicDefinitions = new List<string>();
		public readonly List<string> PrivateDefinitions = new List<string>();
		public readonly List<string> PublicDependencyModuleNames = new List<string>();
		public readonly List<string> PrivateDependencyModuleNames = new List<string>();
		public readonly List<string> PublicAdditionalLibraries = new List<string>();
		public readonly List<string> PublicDelayLoadDLLs = new List<string>();
		public readonly RuntimeDependencyList RuntimeDependencies = new RuntimeDependencyList();
		public string ModuleDirectory { get; private set; }
		public string PluginDirectory { get; private set; }

		public ModuleRules(ReadOnlyTargetRules Target)
		{
			this.Target = Target;
			ModuleDirectory = NextModuleDirectory;
			PluginDirectory = NextPluginDirectory;
		}
	}
}
