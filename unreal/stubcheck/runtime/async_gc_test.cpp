// unreal_async_gc: the plugin's module and async nodes run in the stand-in
// engine (ue_runtime.cpp) on the real libastral, as an Automation test would
// drive them: the module's start-up loads the library through the function
// table; each case makes an async action with its factory, activates it,
// collects garbage while its task is held in flight, then lets the task run
// and ticks the game thread until the outcome arrives. Checks that an action
// with no game instance is rooted until it ends and survives collection, one
// registered with a game instance is not rooted, a second Activate does
// nothing, Cancel fires nothing (even once the action is collected before its
// task ends), the index object may be collected under a running query, input
// failures arrive on a later tick with the exact message, and the Add
// Memories, Find Nearest (Batch), Save and Load nodes report what their
// blocking versions do, filters and payloads included.
// Usage: unreal_async_gc PLUGIN_DIR (holding Binaries/ThirdParty/Astral/Linux/libastral.so)
#include "AstralAsyncActions.h"
#include "AstralAsyncQuery.h"
#include "AstralBlueprintLibrary.h"
#include "AstralIndex.h"
#include "AstralPlugin.h"
#include "Misc/Paths.h"
#include "StubRuntime.h"
#include "Tests/AstralScopedScenario.h"

#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

using UE::Astral::Tests::Unread;

namespace
{
	using namespace UEStub::Runtime;

	int Failures = 0;

	void Expect(bool bOk, const char* What)
	{
		std::printf("%s: %s\n", bOk ? "ok" : "FAIL", What);
		Failures += bOk ? 0 : 1;
	}

	std::string Utf8(const FString& S)
	{
		return std::string(TCHAR_TO_UTF8(*S));
	}

	/** What a Find Nearest (Async) node's pins received. */
	struct FQueryOutcome
	{
		int32 Completed = 0;
		int32 Failed = 0;
		TArray<FAstralResult> Results;
		bool bComplete = false;
		float Covered = 0.0f;
		FString Error;
	};

	void Bind(UAstralAsyncQuery* Action, FQueryOutcome& Outcome)
	{
		Action->OnCompleted.AddStubHandler([&Outcome](const TArray<FAstralResult>& Results, bool bComplete, float Covered, const FString& Error)
		{
			Outcome.Completed++;
			Outcome.Results = Results;
			Outcome.bComplete = bComplete;
			Outcome.Covered = Covered;
			Outcome.Error = Error;
		});
		Action->OnFailed.AddStubHandler([&Outcome](const TArray<FAstralResult>& Results, bool bComplete, float Covered, const FString& Error)
		{
			Outcome.Failed++;
			Outcome.Results = Results;
			Outcome.bComplete = bComplete;
			Outcome.Covered = Covered;
			Outcome.Error = Error;
		});
	}

	bool SameResults(const TArray<FAstralResult>& A, const TArray<FAstralResult>& B)
	{
		if (A.Num() != B.Num())
		{
			return false;
		}
		for (int32 I = 0; I < A.Num(); ++I)
		{
			if (A[I].Id != B[I].Id || std::memcmp(&A[I].Score, &B[I].Score, sizeof(A[I].Score)) != 0 || !(A[I].Payload == B[I].Payload))
			{
				return false;
			}
		}
		return true;
	}

	/** Releases held tasks, waits for them and ticks until nothing is queued. */
	void Finish()
	{
		HoldTasks(false);
		WaitForTasks();
		while (Tick() > 0)
		{
		}
	}

	const TArray<float> QueryVector = { 0.0f, 1.0f, 0.1f, 0.0f };

	FAstralMemory MakeMemory(int64 Id, TArray<float> Vector, const TCHAR* Payload)
	{
		FAstralMemory Memory;
		Memory.Id = Id;
		Memory.Vector = MoveTemp(Vector);
		Memory.Payload = Payload;
		return Memory;
	}
}

int main(int argc, char** argv)
{
	if (argc != 2)
	{
		std::fprintf(stderr, "usage: unreal_async_gc PLUGIN_DIR\n");
		return 2;
	}
	BecomeGameThread();
	SetPluginBaseDir(FString(UTF8_TO_TCHAR(argv[1])));
	FAstralPluginModule Module;
	Module.StartupModule();
	Expect(UAstralBlueprintLibrary::IsAstralAvailable(), "the module's start-up loads libastral through the function table");
	if (!UAstralBlueprintLibrary::IsAstralAvailable())
	{
		for (const FString& Line : TakeLog())
		{
			std::printf("  %s\n", Utf8(Line).c_str());
		}
		return 1;
	}

	FString Error;
	UAstralIndex* Index = nullptr;
	FAstralIndexOptions Flat;
	Flat.Kind = EAstralIndexKind::Flat;
	Expect(UAstralBlueprintLibrary::CreateIndex(4, Flat, Index, Error) == EAstralOutcome::Success, "Create Index");
	Keep(Index); // a Blueprint variable holds it
	const TArray<FAstralMemory> Memories = {
		MakeMemory(10, { 1.0f, 0.0f, 0.0f, 0.0f }, TEXT("ten")),
		MakeMemory(11, { 0.0f, 1.0f, 0.0f, 0.0f }, TEXT("eleven")),
		MakeMemory(12, { 0.0f, 0.7f, 0.7f, 0.0f }, TEXT("twelve")),
		MakeMemory(13, { 0.0f, 0.0f, 0.0f, 1.0f }, TEXT("thirteen")),
	};
	Expect(UAstralBlueprintLibrary::AddMemories(Index, Memories, Error) == EAstralOutcome::Success, "Add Memories");
	TArray<FAstralResult> Expected;
	Expect(UAstralBlueprintLibrary::FindNearest(Index, QueryVector, 3, FAstralQueryFilter(), Expected, Unread<bool>(), Unread<float>(), Error) == EAstralOutcome::Success && Expected.Num() == 3
		&& Expected[0].Payload == TEXT("eleven"), "Find Nearest: 3 hits, with payloads");

	{
		std::printf("== no game instance: rooted, survives a collection while its query runs\n");
		HoldTasks(true);
		FQueryOutcome Outcome;
		UAstralAsyncQuery* Action = UAstralAsyncQuery::FindNearestAsync(nullptr, Index, QueryVector, FAstralQueryFilter(), 3);
		Bind(Action, Outcome);
		const TWeakObjectPtr<UAstralAsyncQuery> Weak(Action);
		const int32 Launched = LaunchedTasks();
		Action->Activate();
		Expect(LaunchedTasks() == Launched + 1, "Activate launches one task");
		Expect(IsRooted(Action) && !IsRegisteredWithGameInstance(Action), "rooted, no game instance");
		CollectGarbage();
		Expect(Weak.IsValid(), "the action survives the collection");
		if (!Weak.IsValid())
		{
			Finish();
			Expect(Outcome.Completed == 1, "a collected action never reports");
			std::printf("unreal_async_gc: FAIL (an async action was collected in flight)\n");
			return 1;
		}
		Expect(Tick() == 0 && Outcome.Completed == 0, "nothing reported while the task is held");
		Action->Activate();
		Expect(LaunchedTasks() == Launched + 1, "a second Activate launches nothing");
		Finish();
		Expect(Outcome.Completed == 1 && Outcome.Failed == 0 && Outcome.Error.IsEmpty(), "On Completed fires once");
		Expect(SameResults(Outcome.Results, Expected), "the results equal Find Nearest's, bit for bit, payloads too");
		Expect(!IsRooted(Action) && Action->HasEnded(), "unrooted once it reported");
		CollectGarbage();
		Expect(!Weak.IsValid(), "collected after");
	}

	{
		std::printf("== a game instance: registered, not rooted\n");
		UObject* World = NewWorldWithGameInstance();
		HoldTasks(true);
		FQueryOutcome Outcome;
		UAstralAsyncQuery* Action = UAstralAsyncQuery::FindNearestAsync(World, Index, QueryVector, FAstralQueryFilter(), 3);
		Bind(Action, Outcome);
		const TWeakObjectPtr<UAstralAsyncQuery> Weak(Action);
		Action->Activate();
		Expect(IsRegisteredWithGameInstance(Action) && !IsRooted(Action), "registered with the game instance");
		CollectGarbage();
		Expect(Weak.IsValid(), "the game instance keeps it through a collection");
		Finish();
		Expect(Outcome.Completed == 1 && SameResults(Outcome.Results, Expected), "On Completed with Find Nearest's results");
		Expect(!IsRegisteredWithGameInstance(Action), "unregistered once it reported");
		CollectGarbage();
		Expect(!Weak.IsValid(), "collected after");
	}

	{
		std::printf("== Cancel: nothing fires, even when the action is collected before its task ends\n");
		HoldTasks(true);
		FQueryOutcome Outcome;
		UAstralAsyncQuery* Action = UAstralAsyncQuery::FindNearestAsync(nullptr, Index, QueryVector, FAstralQueryFilter(), 3);
		Bind(Action, Outcome);
		const TWeakObjectPtr<UAstralAsyncQuery> Weak(Action);
		Action->Activate();
		Action->Cancel();
		Expect(!Action->IsActive() && !IsRooted(Action), "inactive and unrooted at once");
		CollectGarbage();
		Expect(!Weak.IsValid(), "collected while its task is still held");
		Finish();
		Expect(Outcome.Completed == 0 && Outcome.Failed == 0, "no pin fired");
	}

	{
		std::printf("== the index object collected under a running query\n");
		UAstralIndex* Dropped = nullptr;
		Expect(UAstralBlueprintLibrary::CreateIndex(4, Flat, Dropped, Error) == EAstralOutcome::Success && UAstralBlueprintLibrary::AddMemories(Dropped, Memories, Error) == EAstralOutcome::Success,
			"a second index, held by nothing");
		HoldTasks(true);
		FQueryOutcome Outcome;
		UAstralAsyncQuery* Action = UAstralAsyncQuery::FindNearestAsync(nullptr, Dropped, QueryVector, FAstralQueryFilter(), 3);
		Bind(Action, Outcome);
		Action->Activate();
		const TWeakObjectPtr<UAstralIndex> WeakIndex(Dropped);
		CollectGarbage();
		Expect(!WeakIndex.IsValid(), "the index object is collected");
		Finish();
		Expect(Outcome.Completed == 1 && SameResults(Outcome.Results, Expected), "the query still completes with the same results");
	}

	{
		std::printf("== input failures: a later tick, the exact message\n");
		TakeLog();
		FQueryOutcome Outcome;
		UAstralAsyncQuery* Action = UAstralAsyncQuery::FindNearestAsync(nullptr, nullptr, QueryVector, FAstralQueryFilter(), 3);
		Bind(Action, Outcome);
		Action->Activate();
		Expect(Outcome.Failed == 0, "not reported inside Activate");
		CollectGarbage();
		Finish();
		Expect(Outcome.Failed == 1 && Outcome.Completed == 0, "On Failed fires once");
		Expect(Outcome.Error == TEXT("Astral Find Nearest (Async): Index is None"), "Error is exactly \"Astral Find Nearest (Async): Index is None\"");
		const TArray<FString> Log = TakeLog();
		Expect(Log.Num() == 1 && Log[0] == TEXT("LogAstral: Warning: Astral Find Nearest (Async): Index is None"), "logged once, as that warning");

		FQueryOutcome Bad;
		UAstralAsyncQuery* Short = UAstralAsyncQuery::FindNearestAsync(nullptr, Index, { 1.0f, 2.0f }, FAstralQueryFilter(), 3);
		Bind(Short, Bad);
		Short->Activate();
		Finish();
		const TCHAR* Mismatch = TEXT("Astral Find Nearest: the vector has 2 floats, not the index's dimension 4");
		Expect(Bad.Failed == 1 && Bad.Error == Mismatch, "a short vector fails with exactly the message Astral.Functional.AsyncQuery expects");
		const TArray<FString> MismatchLog = TakeLog();
		Expect(MismatchLog.Num() == 1 && MismatchLog[0] == FString(TEXT("LogAstral: Warning: ")) + Mismatch, "logged once, as that warning");

		// A library failure's message is read on the worker, where it happened.
		FQueryOutcome NonFinite;
		UAstralAsyncQuery* Nan = UAstralAsyncQuery::FindNearestAsync(nullptr, Index, { std::numeric_limits<float>::quiet_NaN(), 0.0f, 0.0f, 0.0f }, FAstralQueryFilter(), 3);
		Bind(Nan, NonFinite);
		Nan->Activate();
		Finish();
		const TCHAR* NanMessage = TEXT("Astral Find Nearest: non-finite value: astral_index_query_ex: astral: non-finite value: query holds NaN or Inf");
		Expect(NonFinite.Failed == 1 && NonFinite.Error == NanMessage, "a NaN fails with libastral's message, read on the worker");
		if (NonFinite.Error != NanMessage)
		{
			std::printf("  got \"%s\"\n", Utf8(NonFinite.Error).c_str());
		}
		TakeLog();
		if (Bad.Error != Mismatch)
		{
			std::printf("  got \"%s\"\n", Utf8(Bad.Error).c_str());
		}
	}

	{
		std::printf("== Add Memories, Find Nearest (Batch), Save and Load (Async), with filters and payloads\n");
		int32 Done = 0;
		FString AsyncError;
		HoldTasks(true);
		FAstralMemory Fourteen = MakeMemory(14, QueryVector, TEXT("fourteen"));
		Fourteen.Tags = { FName(TEXT("Near")) };
		Fourteen.Owner = 7;
		UAstralAsyncAddBatch* Add = UAstralAsyncAddBatch::AddMemoriesAsync(nullptr, Index, { Fourteen });
		Add->OnCompleted.AddStubHandler([&Done](const FString&) { Done++; });
		Add->OnFailed.AddStubHandler([&AsyncError](const FString& E) { AsyncError = E; });
		Add->Activate();
		CollectGarbage();
		Finish();
		Expect(Done == 1 && AsyncError.IsEmpty(), "Add Memories (Async) completes");
		TArray<FAstralResult> After;
		UAstralBlueprintLibrary::FindNearest(Index, QueryVector, 3, FAstralQueryFilter(), After, Unread<bool>(), Unread<float>(), Error);
		Expect(After.Num() == 3 && After[0].Id == 14 && After[0].Payload == TEXT("fourteen"), "the added memory is found first, with its payload");
		FAstralQueryFilter NearOwner7;
		NearOwner7.Owner = 7;
		NearOwner7.AllTags = { FName(TEXT("Near")) };
		TArray<FAstralResult> Scoped;
		UAstralBlueprintLibrary::FindNearest(Index, { 1.0f, 0.0f, 0.0f, 0.0f }, 3, NearOwner7, Scoped, Unread<bool>(), Unread<float>(), Error);
		Expect(Scoped.Num() == 1 && Scoped[0].Id == 14, "its tag and owner came with it");

		TArray<FAstralResult> BatchExpected;
		TArray<int32> CountsExpected;
		FAstralVector Q0;
		Q0.Values = { 0.0f, 1.0f, 0.1f, 0.0f };
		FAstralVector Q1;
		Q1.Values = { 1.0f, 0.0f, 0.0f, 0.1f };
		const TArray<FAstralVector> Queries = { Q0, Q1 };
		FAstralQueryFilter Deny11;
		Deny11.Deny = { 11 };
		UAstralBlueprintLibrary::FindNearestBatch(Index, Queries, 2, Deny11, BatchExpected, CountsExpected, Error);
		TArray<FAstralResult> BatchResults;
		TArray<int32> BatchCounts;
		HoldTasks(true);
		UAstralAsyncQueryBatch* Batch = UAstralAsyncQueryBatch::FindNearestBatchAsync(nullptr, Index, Queries, Deny11, 2);
		Batch->OnCompleted.AddStubHandler([&](const TArray<FAstralResult>& R, const TArray<int32>& C, const FString&)
		{
			BatchResults = R;
			BatchCounts = C;
		});
		Batch->Activate();
		CollectGarbage();
		Finish();
		Expect(SameResults(BatchResults, BatchExpected) && BatchCounts.Num() == 2 && BatchCounts[0] == CountsExpected[0] && BatchCounts[1] == CountsExpected[1],
			"Find Nearest (Batch, Async) equals Find Nearest (Batch), filter and payloads included");
		Expect(BatchResults.Num() == 4 && BatchResults[0].Id != 11 && BatchResults[1].Id != 11, "the deny list held");

		Done = 0;
		HoldTasks(true);
		UAstralAsyncSave* Save = UAstralAsyncSave::SaveIndexToFileAsync(nullptr, Index, TEXT("Astral/AsyncGc.idx"));
		Save->OnCompleted.AddStubHandler([&Done](const FString&) { Done++; });
		Save->OnFailed.AddStubHandler([&AsyncError](const FString& E) { AsyncError = E; });
		Save->Activate();
		CollectGarbage();
		Finish();
		Expect(Done == 1 && AsyncError.IsEmpty(), "Save Index To File (Async) completes");

		UAstralIndex* Loaded = nullptr;
		HoldTasks(true);
		UAstralAsyncLoad* Load = UAstralAsyncLoad::LoadIndexFromFileAsync(nullptr, TEXT("Astral/AsyncGc.idx"));
		Load->OnCompleted.AddStubHandler([&Loaded](UAstralIndex* I, const FString&) { Loaded = I; });
		Load->OnFailed.AddStubHandler([&AsyncError](UAstralIndex*, const FString& E) { AsyncError = E; });
		Load->Activate();
		CollectGarbage();
		Finish();
		Expect(Loaded != nullptr && AsyncError.IsEmpty(), "Load Index From File (Async) completes with an index");
		if (Loaded != nullptr)
		{
			TArray<FAstralResult> Reloaded;
			UAstralBlueprintLibrary::FindNearest(Loaded, QueryVector, 3, FAstralQueryFilter(), Reloaded, Unread<bool>(), Unread<float>(), Error);
			Expect(SameResults(Reloaded, After), "the loaded index answers as the saved one");
		}

		FString LoadError;
		UAstralAsyncLoad* Missing = UAstralAsyncLoad::LoadIndexFromFileAsync(nullptr, TEXT("Astral/NoSuchIndex.idx"));
		Missing->OnFailed.AddStubHandler([&LoadError](UAstralIndex*, const FString& E) { LoadError = E; });
		Missing->Activate();
		Finish();
		const FString MissingMessage = FString::Printf(TEXT("Astral Load Index From File: no index file at %s"),
			*FPaths::Combine(FPaths::ConvertRelativePathToFull(FPaths::ProjectSavedDir()), TEXT("Astral/NoSuchIndex.idx")));
		Expect(LoadError == MissingMessage, "a missing file fails with \"Astral Load Index From File: no index file at <its full path>\"");
		TakeLog();
	}

	{
		std::printf("== Recall Memories (Async) and the budget pin of Find Nearest (Async)\n");
		FAstralRecallWeights Weights;
		Weights.HalfLife = 10.0;
		TArray<int64> Thirteen = { 13 };
		Expect(UAstralBlueprintLibrary::TouchMemories(Index, Thirteen, 100, Error) == EAstralOutcome::Success
			&& UAstralBlueprintLibrary::SetMemoryImportance(Index, Thirteen, 1.0f, Error) == EAstralOutcome::Success, "Touch Memories and Set Memory Importance on 13");
		TArray<FAstralResult> RecallExpected;
		bool bComplete = false;
		float Covered = 0.0f;
		Expect(UAstralBlueprintLibrary::RecallMemories(Index, QueryVector, 3, FAstralQueryFilter(), Weights, 100, RecallExpected, bComplete, Covered, Error)
				== EAstralOutcome::Success && RecallExpected.Num() == 3 && RecallExpected[0].Id == 13,
			"Recall Memories: 13, recent and important, comes first");
		FQueryOutcome Recall;
		HoldTasks(true);
		UAstralAsyncQuery* RecallAction = UAstralAsyncQuery::RecallMemoriesAsync(nullptr, Index, QueryVector, FAstralQueryFilter(), Weights, 100, 3);
		Bind(RecallAction, Recall);
		RecallAction->Activate();
		CollectGarbage();
		Finish();
		Expect(Recall.Completed == 1 && SameResults(Recall.Results, RecallExpected) && Recall.bComplete && Recall.Covered == 1.0f,
			"Recall Memories (Async) equals Recall Memories, bit for bit; Complete, Covered 1");

		FQueryOutcome Budgeted;
		HoldTasks(true);
		UAstralAsyncQuery* BudgetAction = UAstralAsyncQuery::FindNearestAsync(nullptr, Index, QueryVector, FAstralQueryFilter(), 3, true, 1000000);
		Bind(BudgetAction, Budgeted);
		BudgetAction->Activate();
		CollectGarbage();
		Finish();
		TArray<FAstralResult> Plain;
		UAstralBlueprintLibrary::FindNearest(Index, QueryVector, 3, FAstralQueryFilter(), Plain, Unread<bool>(), Unread<float>(), Error);
		Expect(Budgeted.Completed == 1 && SameResults(Budgeted.Results, Plain) && Budgeted.bComplete && Budgeted.Covered == 1.0f,
			"Find Nearest (Async) with a 1 s budget: Find Nearest's results, Complete, Covered 1");

		FQueryOutcome BadWeights;
		Weights.HalfLife = 0.0;
		UAstralAsyncQuery* BadAction = UAstralAsyncQuery::RecallMemoriesAsync(nullptr, Index, QueryVector, FAstralQueryFilter(), Weights, 100, 3);
		Bind(BadAction, BadWeights);
		BadAction->Activate();
		Finish();
		const TCHAR* HalfLifeMessage = TEXT("Astral Recall Memories: Half Life is 0; it must be above 0 when the Recency weight is not 0");
		Expect(BadWeights.Failed == 1 && BadWeights.Error == HalfLifeMessage, "Recall Memories (Async) with Half Life 0 fails, saying why");
		if (BadWeights.Error != HalfLifeMessage)
		{
			std::printf("  got \"%s\"\n", Utf8(BadWeights.Error).c_str());
		}
		TakeLog();
	}

	Module.ShutdownModule();
	std::printf("unreal_async_gc: %s (%d failures)\n", Failures == 0 ? "PASS" : "FAIL", Failures);
	return Failures == 0 ? 0 : 1;
}
