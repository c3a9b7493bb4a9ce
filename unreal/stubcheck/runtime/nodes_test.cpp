// unreal_nodes: the scoped-query and key nodes (tags by name and Gameplay
// Tag, owners, payloads, filters, Upsert, Remove, Clear, Contains, Count, Get
// Memory Vector, Release) run in the stand-in engine on the real libastral,
// through the scenario the Automation test Astral.Functional.ScopedQuery
// runs in the engine (Private/Tests/AstralScopedScenario.h); then Recall
// Memories, Touch Memories, Set Memory Importance and the budget pins through
// the scenario of Astral.Functional.Recall (AstralRecallScenario.h). Also
// checks that the failures each provokes log exactly the messages its test
// expects.
// Usage: unreal_nodes PLUGIN_DIR (holding Binaries/ThirdParty/Astral/Linux/libastral.so)
#include "AstralBlueprintLibrary.h"
#include "AstralPlugin.h"
#include "StubRuntime.h"
#include "Tests/AstralRecallScenario.h"
#include "Tests/AstralScopedScenario.h"
#include "UObject/Package.h"

#include <cstdio>
#include <string>

namespace
{
	int Failures = 0;
	int Checks = 0;

	std::string Utf8(const FString& S)
	{
		return std::string(TCHAR_TO_UTF8(*S));
	}
}

int main(int argc, char** argv)
{
	using namespace UEStub::Runtime;
	if (argc != 2)
	{
		std::fprintf(stderr, "usage: unreal_nodes PLUGIN_DIR\n");
		return 2;
	}
	BecomeGameThread();
	const FString PluginDir(UTF8_TO_TCHAR(argv[1]));
	SetPluginBaseDir(PluginDir);
	FAstralPluginModule Module;
	Module.StartupModule();
	if (!UAstralBlueprintLibrary::IsAstralAvailable())
	{
		for (const FString& Line : TakeLog())
		{
			std::printf("  %s\n", Utf8(Line).c_str());
		}
		std::printf("unreal_nodes: FAIL (libastral not available)\n");
		return 1;
	}

	UObject* OwnerA = NewObject<UAstralIndex>(GetTransientPackage());
	UObject* OwnerB = NewObject<UAstralIndex>(GetTransientPackage());
	Keep(OwnerA);
	Keep(OwnerB);
	TakeLog();
	UE::Astral::Tests::Scoped::Run([](bool bOk, const FString& What)
	{
		++Checks;
		Failures += bOk ? 0 : 1;
		std::printf("%s: %s\n", bOk ? "ok" : "FAIL", Utf8(What).c_str());
	}, OwnerA, OwnerB, PluginDir + TEXT("/Saved/Scoped.idx"));

	// What Astral.Functional.ScopedQuery expects to be logged, exactly, once each.
	const TArray<FString> Want = {
		TEXT("LogAstral: Warning: Astral Remove Memory: id not found: astral_index_remove: astral: id not found: id 1"),
		TEXT("LogAstral: Warning: Astral Memory Count: Index was released (Release Index)"),
		TEXT("LogAstral: Warning: Astral Contains Memory: Index was released (Release Index)"),
		TEXT("LogAstral: Warning: Astral Add Vector: Index was released (Release Index)"),
	};
	const TArray<FString> Log = TakeLog();
	bool bSameLog = Log.Num() == Want.Num();
	for (int32 Line = 0; bSameLog && Line < Log.Num(); ++Line)
	{
		bSameLog = Log[Line] == Want[Line];
	}
	++Checks;
	Failures += bSameLog ? 0 : 1;
	std::printf("%s: the scenario logs exactly the %d warnings the Automation test expects\n", bSameLog ? "ok" : "FAIL", Want.Num());
	if (!bSameLog)
	{
		for (const FString& Line : Log)
		{
			std::printf("  logged: %s\n", Utf8(Line).c_str());
		}
	}

	TakeLog();
	UE::Astral::Tests::Recall::Run([](bool bOk, const FString& What)
	{
		++Checks;
		Failures += bOk ? 0 : 1;
		std::printf("%s: %s\n", bOk ? "ok" : "FAIL", Utf8(What).c_str());
	}, PluginDir + TEXT("/Saved/Recall.idx"));
	TArray<FString> WantRecall;
	for (const FString& Message : UE::Astral::Tests::Recall::ExpectedErrors())
	{
		WantRecall.Add(TEXT("LogAstral: Warning: ") + Message);
	}
	const TArray<FString> RecallLog = TakeLog();
	bool bSameRecallLog = RecallLog.Num() == WantRecall.Num();
	for (int32 Line = 0; bSameRecallLog && Line < RecallLog.Num(); ++Line)
	{
		bSameRecallLog = RecallLog[Line] == WantRecall[Line];
	}
	++Checks;
	Failures += bSameRecallLog ? 0 : 1;
	std::printf("%s: the recall scenario logs exactly the %d warnings Astral.Functional.Recall expects\n", bSameRecallLog ? "ok" : "FAIL", WantRecall.Num());
	if (!bSameRecallLog)
	{
		for (const FString& Line : RecallLog)
		{
			std::printf("  logged: %s\n", Utf8(Line).c_str());
		}
	}

	Module.ShutdownModule();
	std::printf("unreal_nodes: %s (%d checks, %d failures)\n", Failures == 0 ? "PASS" : "FAIL", Checks, Failures);
	return Failures == 0 ? 0 : 1;
}
