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
// failures arrive on a later tick with the exact message, and the Add Batch,
// Query Batch, Save and Load nodes report what their blocking versions do.
// Usage: unreal_async_gc PLUGIN_DIR (holding Binaries/ThirdParty/Astral/Linux/libastral.so)
#include "AstralAsyncActions.h"
#include "AstralAsyncQuery.h"
#include "AstralBlueprintLibrary.h"
#include "AstralIndex.h"
#include "AstralPlugin.h"
#include "StubRuntime.h"

#include <cstdio>
#include <cstring>
#include <string>

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

	/** What a Query (Async) node's pins received. */
	struct FQueryOutcome
	{
		int32 Completed = 0;
		int32 Failed = 0;
		TArray<FAstralResult> Results;
		FString Error;
	};

	void Bind(UAstralAsyncQuery* Action, FQueryOutcome& Outcome)
	{
		Action->OnCompleted.AddStubHandler([&Outcome](const TArray<FAstralResult>& Results, const FString& Error)
		{
			Outcome.Completed++;
			Outcome.Results = Results;
			Outcome.Error = Error;
		});
		Action->OnFailed.AddStubHandler([&Outcome](const TArray<FAstralResult>& Results, const FString& Error)
		{
			Outcome.Failed++;
			Outcome.Results = Results;
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
			if (A[I].Id != B[I].Id || std::memcmp(&A[I].Score, &B[I].Score, sizeof(A[I].Score)) != 0)
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
	Expect(UAstralBlueprintLibrary::CreateIndex(4, EAstralMetric::Cosine, EAstralIndexKind::Flat, Index, Error), "Create Index");
	Keep(Index); // a Blueprint variable holds it
	const TArray<float> Vectors = { 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.7f, 0.7f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f };
	Expect(UAstralBlueprintLibrary::AddBatch(Index, { 10, 11, 12, 13 }, Vectors, Error), "Add Batch");
	TArray<FAstralResult> Expected;
	Expect(UAstralBlueprintLibrary::Query(Index, QueryVector, 3, Expected, Error) && Expected.Num() == 3, "Query: 3 hits");

	{
		std::printf("== no game instance: rooted, survives a collection while its query runs\n");
		HoldTasks(true);
		FQueryOutcome Outcome;
		UAstralAsyncQuery* Action = UAstralAsyncQuery::QueryAsync(nullptr, Index, QueryVector, 3);
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
		Expect(SameResults(Outcome.Results, Expected), "the results equal Query's, bit for bit");
		Expect(!IsRooted(Action) && Action->HasEnded(), "unrooted once it reported");
		CollectGarbage();
		Expect(!Weak.IsValid(), "collected after");
	}

	{
		std::printf("== a game instance: registered, not rooted\n");
		UObject* World = NewWorldWithGameInstance();
		HoldTasks(true);
		FQueryOutcome Outcome;
		UAstralAsyncQuery* Action = UAstralAsyncQuery::QueryAsync(World, Index, QueryVector, 3);
		Bind(Action, Outcome);
		const TWeakObjectPtr<UAstralAsyncQuery> Weak(Action);
		Action->Activate();
		Expect(IsRegisteredWithGameInstance(Action) && !IsRooted(Action), "registered with the game instance");
		CollectGarbage();
		Expect(Weak.IsValid(), "the game instance keeps it through a collection");
		Finish();
		Expect(Outcome.Completed == 1 && SameResults(Outcome.Results, Expected), "On Completed with Query's results");
		Expect(!IsRegisteredWithGameInstance(Action), "unregistered once it reported");
		CollectGarbage();
		Expect(!Weak.IsValid(), "collected after");
	}

	{
		std::printf("== Cancel: nothing fires, even when the action is collected before its task ends\n");
		HoldTasks(true);
		FQueryOutcome Outcome;
		UAstralAsyncQuery* Action = UAstralAsyncQuery::QueryAsync(nullptr, Index, QueryVector, 3);
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
		Expect(UAstralBlueprintLibrary::CreateIndex(4, EAstralMetric::Cosine, EAstralIndexKind::Flat, Dropped, Error)
				&& UAstralBlueprintLibrary::AddBatch(Dropped, { 10, 11, 12, 13 }, Vectors, Error),
			"a second index, held by nothing");
		HoldTasks(true);
		FQueryOutcome Outcome;
		UAstralAsyncQuery* Action = UAstralAsyncQuery::QueryAsync(nullptr, Dropped, QueryVector, 3);
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
		UAstralAsyncQuery* Action = UAstralAsyncQuery::QueryAsync(nullptr, nullptr, QueryVector, 3);
		Bind(Action, Outcome);
		Action->Activate();
		Expect(Outcome.Failed == 0, "not reported inside Activate");
		CollectGarbage();
		Finish();
		Expect(Outcome.Failed == 1 && Outcome.Completed == 0, "On Failed fires once");
		Expect(Outcome.Error == TEXT("Astral Query (Async): Index is None"), "Error is exactly \"Astral Query (Async): Index is None\"");
		const TArray<FString> Log = TakeLog();
		Expect(Log.Num() == 1 && Log[0] == TEXT("LogAstral: Warning: Astral Query (Async): Index is None"), "logged once, as that warning");

		FQueryOutcome Bad;
		UAstralAsyncQuery* Short = UAstralAsyncQuery::QueryAsync(nullptr, Index, { 1.0f, 2.0f }, 3);
		Bind(Short, Bad);
		Short->Activate();
		Finish();
		const TCHAR* Mismatch = TEXT("Astral Query: dimension mismatch: astral_index_query: query has 2 values, index dimension is 4");
		Expect(Bad.Failed == 1 && Bad.Error == Mismatch, "a short vector fails with exactly the message Astral.Functional.AsyncQuery expects");
		const TArray<FString> MismatchLog = TakeLog();
		Expect(MismatchLog.Num() == 1 && MismatchLog[0] == FString(TEXT("LogAstral: Warning: ")) + Mismatch, "logged once, as that warning (read on the worker, where it failed)");
		if (Bad.Error != Mismatch)
		{
			std::printf("  got \"%s\"\n", Utf8(Bad.Error).c_str());
		}
	}

	{
		std::printf("== Add Batch, Query Batch, Save and Load (Async)\n");
		int32 Done = 0;
		FString AsyncError;
		HoldTasks(true);
		UAstralAsyncAddBatch* Add = UAstralAsyncAddBatch::AddBatchAsync(nullptr, Index, { 14 }, QueryVector);
		Add->OnCompleted.AddStubHandler([&Done](const FString&) { Done++; });
		Add->OnFailed.AddStubHandler([&AsyncError](const FString& E) { AsyncError = E; });
		Add->Activate();
		CollectGarbage();
		Finish();
		Expect(Done == 1 && AsyncError.IsEmpty(), "Add Batch (Async) completes");
		TArray<FAstralResult> After;
		UAstralBlueprintLibrary::Query(Index, QueryVector, 3, After, Error);
		Expect(After.Num() == 3 && After[0].Id == 14, "the added vector is found first");

		TArray<FAstralResult> BatchExpected;
		TArray<int32> CountsExpected;
		const TArray<float> Queries = { 0.0f, 1.0f, 0.1f, 0.0f, 1.0f, 0.0f, 0.0f, 0.1f };
		UAstralBlueprintLibrary::QueryBatch(Index, Queries, 2, BatchExpected, CountsExpected, Error);
		TArray<FAstralResult> BatchResults;
		TArray<int32> BatchCounts;
		HoldTasks(true);
		UAstralAsyncQueryBatch* Batch = UAstralAsyncQueryBatch::QueryBatchAsync(nullptr, Index, Queries, 2);
		Batch->OnCompleted.AddStubHandler([&](const TArray<FAstralResult>& R, const TArray<int32>& C, const FString&)
		{
			BatchResults = R;
			BatchCounts = C;
		});
		Batch->Activate();
		CollectGarbage();
		Finish();
		Expect(SameResults(BatchResults, BatchExpected) && BatchCounts.Num() == 2 && BatchCounts[0] == CountsExpected[0] && BatchCounts[1] == CountsExpected[1],
			"Query Batch (Async) equals Query Batch");

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
			UAstralBlueprintLibrary::Query(Loaded, QueryVector, 3, Reloaded, Error);
			Expect(SameResults(Reloaded, After), "the loaded index answers as the saved one");
		}

		FString LoadError;
		UAstralAsyncLoad* Missing = UAstralAsyncLoad::LoadIndexFromFileAsync(nullptr, TEXT("Astral/NoSuchIndex.idx"));
		Missing->OnFailed.AddStubHandler([&LoadError](UAstralIndex*, const FString& E) { LoadError = E; });
		Missing->Activate();
		Finish();
		Expect(Utf8(LoadError).rfind("Astral Load Index From File: i/o error: ", 0) == 0, "a missing file fails with \"Astral Load Index From File: i/o error: ...\"");
		TakeLog();
	}

	Module.ShutdownModule();
	std::printf("unreal_async_gc: %s (%d failures)\n", Failures == 0 ? "PASS" : "FAIL", Failures);
	return Failures == 0 ? 0 : 1;
}
