// Functional tests of the Blueprint nodes and the async query path:
// add, query, remove, batches, stats, save and load, scoped queries and keys,
// and bad input that must fail cleanly, with the exact message.

#include "CoreMinimal.h"

#if WITH_DEV_AUTOMATION_TESTS

#include "AstralApi.h"
#include "AstralBlueprintLibrary.h"
#include "AstralIndex.h"
#include "AstralNativeIndex.h"
#include "CoreGlobals.h"
#include "HAL/PlatformTime.h"
#include "Misc/AutomationTest.h"
#include "Misc/Paths.h"
#include "Tests/AstralRecallScenario.h"
#include "Tests/AstralScopedScenario.h"
#include "Tests/AstralTestHelpers.h"
#include "UObject/Package.h"

#include <limits>

namespace UE::Astral::Tests::Functional
{
	static TArray<float> Vec(float A, float B, float C, float D)
	{
		return TArray<float>({ A, B, C, D });
	}

	static FAstralIndexOptions FlatOptions()
	{
		FAstralIndexOptions Options;
		Options.Kind = EAstralIndexKind::Flat;
		return Options;
	}

	static FAstralMemory Memory(int64 Id, TArray<float> Vector)
	{
		FAstralMemory Made;
		Made.Id = Id;
		Made.Vector = MoveTemp(Vector);
		return Made;
	}

	static FAstralVector Row(TArray<float> Values)
	{
		FAstralVector Made;
		Made.Values = MoveTemp(Values);
		return Made;
	}

	/** A 4-float index holding 10 (1,0,0,0), 11 (0,1,0,0), 12 (0,0,1,0) and 13 (0.9,0.1,0,0). */
	static UAstralIndex* MakeSmallIndex(FAutomationTestBase& Test)
	{
		UAstralIndex* Index = nullptr;
		FString Error;
		if (UAstralBlueprintLibrary::CreateIndex(4, FlatOptions(), Index, Error) != EAstralOutcome::Success)
		{
			Test.AddError(Error);
			return nullptr;
		}
		const bool bAdded = UAstralBlueprintLibrary::AddVector(Index, 10, Vec(1.0f, 0.0f, 0.0f, 0.0f), Error) == EAstralOutcome::Success
			&& UAstralBlueprintLibrary::AddVector(Index, 11, Vec(0.0f, 1.0f, 0.0f, 0.0f), Error) == EAstralOutcome::Success
			&& UAstralBlueprintLibrary::AddMemories(Index, { Memory(12, Vec(0.0f, 0.0f, 1.0f, 0.0f)), Memory(13, Vec(0.9f, 0.1f, 0.0f, 0.0f)) }, Error) == EAstralOutcome::Success;
		if (!bAdded)
		{
			Test.AddError(Error);
			return nullptr;
		}
		return Index;
	}

	/**
	 * Runs Call (a node given an Error to fill) expecting it to fail with
	 * exactly Expected, which it also logs to LogAstral once: that warning
	 * is expected, verbatim (not as a pattern), once.
	 */
	template <typename FCall>
	static void ExpectFailure(FAutomationTestBase& Test, const TCHAR* What, const FString& Expected, FCall&& Call)
	{
		Test.AddExpectedError(Expected, EAutomationExpectedErrorFlags::Exact, 1, false);
		FString Error;
		const EAstralOutcome Outcome = Call(Error);
		Test.TestTrue(*FString::Printf(TEXT("%s leaves by Failure"), What), Outcome == EAstralOutcome::Failure);
		Test.TestEqual(*FString::Printf(TEXT("%s says why"), What), Error, Expected);
	}

	/** Under the project's Saved folder; each run replaces it. */
	static const TCHAR* const SavedIndexPath = TEXT("Astral/Tests/SaveLoad.idx");

	/**
	 * Queries Expected and Actual with each stored direction, one never
	 * stored and one in between: a saved and loaded index must give the
	 * same ids, scores (bit for bit) and payloads.
	 */
	static void ExpectSameAnswers(FAutomationTestBase& Test, const TCHAR* What, UAstralIndex* Expected, UAstralIndex* Actual)
	{
		const float Queries[][4] = {
			{ 1.0f, 0.0f, 0.0f, 0.0f },
			{ 0.0f, 1.0f, 0.0f, 0.0f },
			{ 0.0f, 0.0f, 1.0f, 0.0f },
			{ 0.0f, 0.0f, 0.0f, 1.0f },
			{ 0.5f, 0.3f, -0.2f, 0.1f },
		};
		int32 QueryIndex = 0;
		for (const float (&Query)[4] : Queries)
		{
			const TArray<float> Vector(Query, 4);
			TArray<FAstralResult> Want;
			TArray<FAstralResult> Got;
			FString WantError;
			FString GotError;
			const bool bWant = UAstralBlueprintLibrary::FindNearest(Expected, Vector, 4, FAstralQueryFilter(), Want, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), WantError) == EAstralOutcome::Success;
			const bool bGot = UAstralBlueprintLibrary::FindNearest(Actual, Vector, 4, FAstralQueryFilter(), Got, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), GotError) == EAstralOutcome::Success;
			if (!Test.TestTrue(*FString::Printf(TEXT("%s: query %d on the original: %s"), What, QueryIndex, *WantError), bWant)
				|| !Test.TestTrue(*FString::Printf(TEXT("%s: query %d on the loaded index: %s"), What, QueryIndex, *GotError), bGot)
				|| !Test.TestEqual(*FString::Printf(TEXT("%s: query %d, as many hits"), What, QueryIndex), Got.Num(), Want.Num()))
			{
				return;
			}
			for (int32 Hit = 0; Hit < Want.Num(); ++Hit)
			{
				Test.TestEqual(*FString::Printf(TEXT("%s: query %d, hit %d, the same id"), What, QueryIndex, Hit), Got[Hit].Id, Want[Hit].Id);
				Test.TestTrue(*FString::Printf(TEXT("%s: query %d, hit %d, the same score (%.9g, want %.9g)"), What, QueryIndex, Hit,
					static_cast<double>(Got[Hit].Score), static_cast<double>(Want[Hit].Score)), Got[Hit].Score == Want[Hit].Score);
				Test.TestEqual(*FString::Printf(TEXT("%s: query %d, hit %d, the same payload"), What, QueryIndex, Hit), Got[Hit].Payload, Want[Hit].Payload);
			}
			++QueryIndex;
		}
	}
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FAstralAddQueryRemoveTest, "Astral.Functional.AddQueryRemove",
	EAutomationTestFlags::EditorContext | EAutomationTestFlags::ProductFilter)

bool FAstralAddQueryRemoveTest::RunTest(const FString& /*Parameters*/)
{
	using namespace UE::Astral::Tests;

	if (!RequireAstral(*this))
	{
		return false;
	}
	UAstralIndex* Index = Functional::MakeSmallIndex(*this);
	if (Index == nullptr)
	{
		return false;
	}
	TestEqual(TEXT("Get Dimension"), Index->GetDimension(), 4);

	FString Error;
	TArray<FAstralResult> Results;
	TestTrue(TEXT("Query"), UAstralBlueprintLibrary::FindNearest(Index, { 1.0f, 0.0f, 0.0f, 0.0f }, 2, FAstralQueryFilter(), Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), Error) == EAstralOutcome::Success);
	if (TestEqual(TEXT("Query returns K hits"), Results.Num(), 2))
	{
		TestEqual(TEXT("the nearest is the same direction"), Results[0].Id, static_cast<int64>(10));
		TestEqual(TEXT("then the one closest in angle"), Results[1].Id, static_cast<int64>(13));
		TestTrue(TEXT("cosine of the same direction is about 1"), Results[0].Score > 0.99f && Results[0].Score < 1.01f);
		TestTrue(TEXT("best first"), Results[0].Score >= Results[1].Score);
	}

	TestTrue(TEXT("Query with K above the count"), UAstralBlueprintLibrary::FindNearest(Index, { 1.0f, 0.0f, 0.0f, 0.0f }, 10, FAstralQueryFilter(), Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), Error) == EAstralOutcome::Success);
	TestEqual(TEXT("as many hits as stored vectors"), Results.Num(), 4);

	TestTrue(TEXT("Remove"), UAstralBlueprintLibrary::RemoveMemories(Index, { 10 }, Error) == EAstralOutcome::Success);
	TestTrue(TEXT("Query after Remove"), UAstralBlueprintLibrary::FindNearest(Index, { 1.0f, 0.0f, 0.0f, 0.0f }, 1, FAstralQueryFilter(), Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), Error) == EAstralOutcome::Success);
	if (TestEqual(TEXT("one hit"), Results.Num(), 1))
	{
		TestEqual(TEXT("the removed id is gone"), Results[0].Id, static_cast<int64>(13));
	}

	FAstralStats Stats;
	if (TestTrue(TEXT("Get Stats"), UAstralBlueprintLibrary::GetStats(Index, Stats, Error) == EAstralOutcome::Success))
	{
		TestEqual(TEXT("stats count"), Stats.Count, static_cast<int64>(3));
		TestEqual(TEXT("stats dimension"), Stats.Dimension, 4);
		TestTrue(TEXT("stats metric"), Stats.Metric == EAstralMetric::Cosine);
		TestTrue(TEXT("stats kind"), Stats.Kind == EAstralIndexKind::Flat);
		TestTrue(TEXT("stats bytes"), Stats.Bytes > 0);
		TestFalse(TEXT("stats kernel"), Stats.Kernel.IsEmpty());
	}

	// Ids keep all 64 bits through int64, negative ones too.
	TestTrue(TEXT("Add a negative id"), UAstralBlueprintLibrary::AddVector(Index, -5, { 0.0f, 0.0f, 0.0f, 1.0f }, Error) == EAstralOutcome::Success);
	TestTrue(TEXT("Query for it"), UAstralBlueprintLibrary::FindNearest(Index, { 0.0f, 0.0f, 0.0f, 1.0f }, 1, FAstralQueryFilter(), Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), Error) == EAstralOutcome::Success);
	if (TestEqual(TEXT("one hit"), Results.Num(), 1))
	{
		TestEqual(TEXT("the negative id comes back"), Results[0].Id, static_cast<int64>(-5));
	}
	const int64 Largest = std::numeric_limits<int64>::max();
	TestTrue(TEXT("Add the largest id"), UAstralBlueprintLibrary::AddVector(Index, Largest, { 0.0f, 0.5f, 0.5f, 0.0f }, Error) == EAstralOutcome::Success);
	TestTrue(TEXT("Remove it"), UAstralBlueprintLibrary::RemoveMemories(Index, { Largest }, Error) == EAstralOutcome::Success);
	return true;
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FAstralQueryBatchTest, "Astral.Functional.QueryBatch",
	EAutomationTestFlags::EditorContext | EAutomationTestFlags::ProductFilter)

bool FAstralQueryBatchTest::RunTest(const FString& /*Parameters*/)
{
	using namespace UE::Astral::Tests;
	using Functional::Row;
	using Functional::Vec;

	if (!RequireAstral(*this))
	{
		return false;
	}
	UAstralIndex* Index = Functional::MakeSmallIndex(*this);
	if (Index == nullptr)
	{
		return false;
	}
	const TArray<FAstralVector> Queries = { Row(Vec(1.0f, 0.0f, 0.0f, 0.0f)), Row(Vec(0.0f, 1.0f, 0.0f, 0.0f)) };
	TArray<FAstralResult> Results;
	TArray<int32> Counts;
	FString Error;
	TestTrue(TEXT("Find Nearest (Batch)"), UAstralBlueprintLibrary::FindNearestBatch(Index, Queries, 1, FAstralQueryFilter(), Results, Counts, Error) == EAstralOutcome::Success);
	if (TestEqual(TEXT("a count per query"), Counts.Num(), 2) && TestEqual(TEXT("a hit per query"), Results.Num(), 2))
	{
		TestEqual(TEXT("query 0"), Results[0].Id, static_cast<int64>(10));
		TestEqual(TEXT("query 1"), Results[1].Id, static_cast<int64>(11));
	}

	// Each batch row equals the single query.
	TestTrue(TEXT("Find Nearest (Batch), K 3"), UAstralBlueprintLibrary::FindNearestBatch(Index, Queries, 3, FAstralQueryFilter(), Results, Counts, Error) == EAstralOutcome::Success);
	for (int32 Query = 0; Query < 2 && Counts.Num() == 2 && Results.Num() == 6; ++Query)
	{
		TArray<FAstralResult> Single;
		TestTrue(TEXT("Find Nearest"), UAstralBlueprintLibrary::FindNearest(Index, Queries[Query].Values, 3, FAstralQueryFilter(), Single, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), Error) == EAstralOutcome::Success);
		TestEqual(TEXT("count"), Counts[Query], Single.Num());
		for (int32 Hit = 0; Hit < Single.Num(); ++Hit)
		{
			TestEqual(TEXT("same id as Find Nearest"), Results[Query * 3 + Hit].Id, Single[Hit].Id);
		}
	}

	// Fewer vectors than K: every query's hits follow each other, no gaps.
	TestTrue(TEXT("Find Nearest (Batch), K 8"), UAstralBlueprintLibrary::FindNearestBatch(Index, Queries, 8, FAstralQueryFilter(), Results, Counts, Error) == EAstralOutcome::Success);
	if (TestEqual(TEXT("two counts"), Counts.Num(), 2))
	{
		TestEqual(TEXT("all four stored"), Counts[0], 4);
		TestEqual(TEXT("hits back to back"), Results.Num(), Counts[0] + Counts[1]);
	}

	TestTrue(TEXT("an empty batch"), UAstralBlueprintLibrary::FindNearestBatch(Index, TArray<FAstralVector>(), 5, FAstralQueryFilter(), Results, Counts, Error) == EAstralOutcome::Success);
	TestEqual(TEXT("no counts"), Counts.Num(), 0);
	return true;
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FAstralBadInputTest, "Astral.Functional.BadInput",
	EAutomationTestFlags::EditorContext | EAutomationTestFlags::ProductFilter)

bool FAstralBadInputTest::RunTest(const FString& /*Parameters*/)
{
	using namespace UE::Astral::Tests;
	using Functional::ExpectFailure;
	using Functional::Memory;
	using Functional::Row;
	using Functional::Vec;

	if (!RequireAstral(*this))
	{
		return false;
	}
	// Each failure below logs its message to LogAstral once: ExpectFailure
	// expects exactly that message.
	TArray<FAstralResult> Results;
	TArray<int32> Counts;
	FAstralStats Stats;
	const TArray<float> Good = Vec(1.0f, 0.0f, 0.0f, 0.0f);
	const FAstralQueryFilter All;

	UAstralIndex* Made = nullptr;
	ExpectFailure(*this, TEXT("Create Index, dimension 0"), TEXT("Astral Create Index: Dimension is 0, not 1 to 4096"),
		[&](FString& Error) { return UAstralBlueprintLibrary::CreateIndex(0, Functional::FlatOptions(), Made, Error); });
	TestNull(TEXT("no index for dimension 0"), Made);
	ExpectFailure(*this, TEXT("Create Index, dimension 4097"), TEXT("Astral Create Index: Dimension is 4097, not 1 to 4096"),
		[&](FString& Error) { return UAstralBlueprintLibrary::CreateIndex(ASTRAL_MAX_DIMENSION + 1, Functional::FlatOptions(), Made, Error); });
	FAstralIndexOptions NegativeM = Functional::FlatOptions();
	NegativeM.HnswM = -1;
	ExpectFailure(*this, TEXT("Create Index, HNSW M -1"), TEXT("Astral Create Index: HNSW M is -1, below 0"),
		[&](FString& Error) { return UAstralBlueprintLibrary::CreateIndex(4, NegativeM, Made, Error); });
	// HNSW is a valid kind: creating one succeeds (its search is covered by the C tests).
	FAstralIndexOptions Hnsw;
	Hnsw.Kind = EAstralIndexKind::Hnsw;
	Hnsw.HnswM = 8;
	Hnsw.HnswEfSearch = 32;
	FString Error;
	TestTrue(TEXT("Create Index, HNSW"), UAstralBlueprintLibrary::CreateIndex(4, Hnsw, Made, Error) == EAstralOutcome::Success);
	TestNotNull(TEXT("an HNSW index"), Made);

	ExpectFailure(*this, TEXT("Add Vector to None"), TEXT("Astral Add Vector: Index is None"),
		[&](FString& E) { return UAstralBlueprintLibrary::AddVector(nullptr, 1, Good, E); });
	ExpectFailure(*this, TEXT("Add Memories to None"), TEXT("Astral Add Memories: Index is None"),
		[&](FString& E) { return UAstralBlueprintLibrary::AddMemories(nullptr, { Memory(1, Good) }, E); });
	ExpectFailure(*this, TEXT("Remove Memories from None"), TEXT("Astral Remove Memories: Index is None"),
		[&](FString& E) { return UAstralBlueprintLibrary::RemoveMemories(nullptr, { 1 }, E); });
	ExpectFailure(*this, TEXT("Find Nearest on None"), TEXT("Astral Find Nearest: Index is None"),
		[&](FString& E) { return UAstralBlueprintLibrary::FindNearest(nullptr, Good, 1, All, Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), E); });
	ExpectFailure(*this, TEXT("Find Nearest (Batch) on None"), TEXT("Astral Find Nearest (Batch): Index is None"),
		[&](FString& E) { return UAstralBlueprintLibrary::FindNearestBatch(nullptr, { Row(Good) }, 1, All, Results, Counts, E); });
	ExpectFailure(*this, TEXT("Get Index Stats of None"), TEXT("Astral Get Index Stats: Index is None"),
		[&](FString& E) { return UAstralBlueprintLibrary::GetStats(nullptr, Stats, E); });

	UAstralIndex* Unmade = NewObject<UAstralIndex>(GetTransientPackage());
	ExpectFailure(*this, TEXT("Find Nearest on an index not made by Create Index"), TEXT("Astral Find Nearest: Index was not made by Create Index or a Load Index node"),
		[&](FString& E) { return UAstralBlueprintLibrary::FindNearest(Unmade, Good, 1, All, Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), E); });

	UAstralIndex* Index = Functional::MakeSmallIndex(*this);
	if (Index == nullptr)
	{
		return false;
	}
	ExpectFailure(*this, TEXT("Add a short vector"),
		TEXT("Astral Add Vector: dimension mismatch: astral_index_add: astral: dimension mismatch: 2 values for 1 ids of dimension 4"),
		[&](FString& E) { return UAstralBlueprintLibrary::AddVector(Index, 1, { 1.0f, 2.0f }, E); });
	ExpectFailure(*this, TEXT("Add an empty vector"),
		TEXT("Astral Add Vector: dimension mismatch: astral_index_add: astral: dimension mismatch: 0 values for 1 ids of dimension 4"),
		[&](FString& E) { return UAstralBlueprintLibrary::AddVector(Index, 1, TArray<float>(), E); });
	ExpectFailure(*this, TEXT("Add NaN"), TEXT("Astral Add Vector: non-finite value: astral_index_add: astral: non-finite value: vectors hold NaN or Inf"),
		[&](FString& E) { return UAstralBlueprintLibrary::AddVector(Index, 1, Vec(std::numeric_limits<float>::quiet_NaN(), 0.0f, 0.0f, 0.0f), E); });
	ExpectFailure(*this, TEXT("Add infinity"), TEXT("Astral Add Vector: non-finite value: astral_index_add: astral: non-finite value: vectors hold NaN or Inf"),
		[&](FString& E) { return UAstralBlueprintLibrary::AddVector(Index, 1, Vec(std::numeric_limits<float>::infinity(), 0.0f, 0.0f, 0.0f), E); });
	ExpectFailure(*this, TEXT("Add a stored id"), TEXT("Astral Add Vector: duplicate id: astral_index_add: astral: duplicate id: id 10 already stored"),
		[&](FString& E) { return UAstralBlueprintLibrary::AddVector(Index, 10, Good, E); });
	ExpectFailure(*this, TEXT("Add Memories, one id twice"),
		TEXT("Astral Add Memories: duplicate id: astral_index_add_ex: astral: duplicate id: id 20 repeated in one Add"),
		[&](FString& E) { return UAstralBlueprintLibrary::AddMemories(Index, { Memory(20, Good), Memory(20, Vec(0.0f, 1.0f, 0.0f, 0.0f)) }, E); });
	ExpectFailure(*this, TEXT("Add Memories, a short vector"), TEXT("Astral Add Memories: the vector of id 22 has 2 floats, not the index's dimension 4"),
		[&](FString& E) { return UAstralBlueprintLibrary::AddMemories(Index, { Memory(21, Good), Memory(22, { 1.0f, 0.0f }) }, E); });
	ExpectFailure(*this, TEXT("Add Memory, a payload over 4 KiB"), TEXT("Astral Add Memory: the payload of id 23 takes 4097 bytes of UTF-8, more than 4096"),
		[&](FString& E)
		{
			FString Long;
			for (int32 Char = 0; Char < 4097; ++Char)
			{
				Long += TEXT("x");
			}
			return UAstralBlueprintLibrary::AddMemory(Index, 23, Good, TArray<FName>(), FGameplayTagContainer(), 0, Long, E);
		});
	ExpectFailure(*this, TEXT("Remove Memories, an id never stored"), TEXT("Astral Remove Memories: id not found: astral_index_remove: astral: id not found: id 999"),
		[&](FString& E) { return UAstralBlueprintLibrary::RemoveMemories(Index, { 11, 999 }, E); });
	ExpectFailure(*this, TEXT("Remove Memory, an id never stored"), TEXT("Astral Remove Memory: id not found: astral_index_remove: astral: id not found: id 999"),
		[&](FString& E) { return UAstralBlueprintLibrary::RemoveMemory(Index, 999, E); });
	ExpectFailure(*this, TEXT("Find Nearest, K 0"), TEXT("Astral Find Nearest: K is 0, not 1 to 1024"),
		[&](FString& E) { return UAstralBlueprintLibrary::FindNearest(Index, Good, 0, All, Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), E); });
	TestEqual(TEXT("no results after a failure"), Results.Num(), 0);
	ExpectFailure(*this, TEXT("Find Nearest, K above the limit"), TEXT("Astral Find Nearest: K is 1025, not 1 to 1024"),
		[&](FString& E) { return UAstralBlueprintLibrary::FindNearest(Index, Good, ASTRAL_MAX_K + 1, All, Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), E); });
	ExpectFailure(*this, TEXT("Find Nearest, negative K"), TEXT("Astral Find Nearest: K is -3, not 1 to 1024"),
		[&](FString& E) { return UAstralBlueprintLibrary::FindNearest(Index, Good, -3, All, Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), E); });
	ExpectFailure(*this, TEXT("Find Nearest, wrong dimension"), TEXT("Astral Find Nearest: the vector has 2 floats, not the index's dimension 4"),
		[&](FString& E) { return UAstralBlueprintLibrary::FindNearest(Index, { 1.0f, 0.0f }, 1, All, Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), E); });
	TestEqual(TEXT("no results after a failed query"), Results.Num(), 0);
	ExpectFailure(*this, TEXT("Find Nearest, NaN"),
		TEXT("Astral Find Nearest: non-finite value: astral_index_query_ex: astral: non-finite value: query holds NaN or Inf"),
		[&](FString& E) { return UAstralBlueprintLibrary::FindNearest(Index, Vec(std::numeric_limits<float>::quiet_NaN(), 0.0f, 0.0f, 0.0f), 1, All, Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), E); });
	ExpectFailure(*this, TEXT("Find Nearest (Batch), a short query"), TEXT("Astral Find Nearest (Batch): query 1 has 1 floats, not the index's dimension 4"),
		[&](FString& E) { return UAstralBlueprintLibrary::FindNearestBatch(Index, { Row(Good), Row({ 1.0f }) }, 1, All, Results, Counts, E); });
	TestEqual(TEXT("no counts after a failed batch"), Counts.Num(), 0);
	ExpectFailure(*this, TEXT("Define Tag, bit 64"), TEXT("Astral Define Tag: Bit is 64, not 0 to 63"),
		[&](FString& E) { return UAstralBlueprintLibrary::DefineTag(Index, FName(TEXT("Threat")), 64, E); });

	// All or nothing: the failed calls above changed nothing.
	if (TestTrue(TEXT("Get Index Stats"), UAstralBlueprintLibrary::GetStats(Index, Stats, Error) == EAstralOutcome::Success))
	{
		TestEqual(TEXT("still the four vectors"), Stats.Count, static_cast<int64>(4));
	}
	TestTrue(TEXT("the index still answers"), UAstralBlueprintLibrary::FindNearest(Index, Good, 1, All, Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), Error) == EAstralOutcome::Success);

	// Released: every node on it fails, saying so.
	TestTrue(TEXT("Release Index"), UAstralBlueprintLibrary::ReleaseIndex(Index, Error) == EAstralOutcome::Success);
	ExpectFailure(*this, TEXT("Find Nearest on a released index"), TEXT("Astral Find Nearest: Index was released (Release Index)"),
		[&](FString& E) { return UAstralBlueprintLibrary::FindNearest(Index, Good, 1, All, Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), E); });
	ExpectFailure(*this, TEXT("Release Index twice"), TEXT("Astral Release Index: Index was released (Release Index)"),
		[&](FString& E) { return UAstralBlueprintLibrary::ReleaseIndex(Index, E); });
	return true;
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FAstralStorageKindsTest, "Astral.Functional.StorageKinds",
	EAutomationTestFlags::EditorContext | EAutomationTestFlags::ProductFilter)

bool FAstralStorageKindsTest::RunTest(const FString& /*Parameters*/)
{
	using namespace UE::Astral::Tests;
	using Functional::ExpectFailure;

	if (!RequireAstral(*this))
	{
		return false;
	}
	const EAstralStorage Storages[] = { EAstralStorage::E5M2, EAstralStorage::E4M3, EAstralStorage::Int8, EAstralStorage::F16, EAstralStorage::F32 };
	const EAstralRerank Reranks[] = { EAstralRerank::None, EAstralRerank::F16, EAstralRerank::F32 };
	using Functional::Memory;
	using Functional::Vec;
	const TArray<FAstralMemory> Memories = { Memory(10, Vec(1.0f, 0.0f, 0.0f, 0.0f)), Memory(11, Vec(0.0f, 1.0f, 0.0f, 0.0f)),
		Memory(12, Vec(0.0f, 0.0f, 1.0f, 0.0f)), Memory(13, Vec(0.9f, 0.1f, 0.0f, 0.0f)) };
	for (const EAstralStorage Storage : Storages)
	{
		for (const EAstralRerank Rerank : Reranks)
		{
			// Factor 4 with None too: the node's default must not make it fail.
			const int32 Factor = Storage == EAstralStorage::Int8 ? 64 : 4;
			const FString What = FString::Printf(TEXT("storage %d, rerank %d"), static_cast<int32>(Storage), static_cast<int32>(Rerank));
			UAstralIndex* Index = nullptr;
			FString Error;
			FAstralIndexOptions Options = Functional::FlatOptions();
			Options.Storage = Storage;
			Options.Rerank = Rerank;
			Options.RerankFactor = Factor;
			const bool bCreated = UAstralBlueprintLibrary::CreateIndex(4, Options, Index, Error) == EAstralOutcome::Success;
			if (!TestTrue(*FString::Printf(TEXT("Create Index, %s: %s"), *What, *Error), bCreated))
			{
				continue;
			}
			TestTrue(*FString::Printf(TEXT("Add Memories, %s"), *What), UAstralBlueprintLibrary::AddMemories(Index, Memories, Error) == EAstralOutcome::Success);
			TArray<FAstralResult> Results;
			TestTrue(*FString::Printf(TEXT("Query, %s"), *What), UAstralBlueprintLibrary::FindNearest(Index, { 1.0f, 0.0f, 0.0f, 0.0f }, 2, FAstralQueryFilter(), Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), Error) == EAstralOutcome::Success);
			if (TestEqual(*FString::Printf(TEXT("two hits, %s"), *What), Results.Num(), 2))
			{
				TestEqual(*FString::Printf(TEXT("a stored vector finds itself, %s"), *What), Results[0].Id, static_cast<int64>(10));
				TestEqual(*FString::Printf(TEXT("then the nearest in angle, %s"), *What), Results[1].Id, static_cast<int64>(13));
				// One-byte kinds round; a rerank copy scores exactly (F32) or to F16.
				const float Tolerance = Rerank == EAstralRerank::F32 ? 1.e-5f : Rerank == EAstralRerank::F16 ? 2.e-3f : 0.05f;
				TestEqual(*FString::Printf(TEXT("its cosine is about 1, %s"), *What), Results[0].Score, 1.0f, Tolerance);
			}
			FAstralStats Stats;
			if (TestTrue(*FString::Printf(TEXT("Get Stats, %s"), *What), UAstralBlueprintLibrary::GetStats(Index, Stats, Error) == EAstralOutcome::Success))
			{
				TestTrue(*FString::Printf(TEXT("stats storage, %s"), *What), Stats.Storage == Storage);
				TestTrue(*FString::Printf(TEXT("stats rerank, %s"), *What), Stats.Rerank == Rerank);
				TestEqual(*FString::Printf(TEXT("stats rerank factor, %s"), *What), Stats.RerankFactor, Rerank == EAstralRerank::None ? 0 : Factor);
			}
		}
	}

	// The default factor, and the bytes a copy costs.
	UAstralIndex* Plain = nullptr;
	UAstralIndex* Copied = nullptr;
	FString Error;
	FAstralStats PlainStats;
	FAstralStats CopiedStats;
	FAstralIndexOptions Int8 = Functional::FlatOptions();
	Int8.Storage = EAstralStorage::Int8;
	FAstralIndexOptions Int8F32 = Int8;
	Int8F32.Rerank = EAstralRerank::F32;
	Int8F32.RerankFactor = 0;
	if (TestTrue(TEXT("Create Index, Int8"), UAstralBlueprintLibrary::CreateIndex(4, Int8, Plain, Error) == EAstralOutcome::Success)
		&& TestTrue(TEXT("Create Index, Int8 + F32, factor 0"), UAstralBlueprintLibrary::CreateIndex(4, Int8F32, Copied, Error) == EAstralOutcome::Success)
		&& TestTrue(TEXT("Get Stats, Int8"), UAstralBlueprintLibrary::GetStats(Plain, PlainStats, Error) == EAstralOutcome::Success)
		&& TestTrue(TEXT("Get Stats, Int8 + F32"), UAstralBlueprintLibrary::GetStats(Copied, CopiedStats, Error) == EAstralOutcome::Success))
	{
		TestEqual(TEXT("factor 0 is the library's 4"), CopiedStats.RerankFactor, static_cast<int32>(ASTRAL_DEFAULT_RERANK_FACTOR));
		TestTrue(TEXT("an F32 copy costs at least 4 bytes per component"), CopiedStats.BytesPerVector - PlainStats.BytesPerVector >= 16.0);
	}

	UAstralIndex* Made = nullptr;
	FAstralIndexOptions Factor65 = Int8;
	Factor65.Rerank = EAstralRerank::F16;
	Factor65.RerankFactor = 65;
	ExpectFailure(*this, TEXT("Create Index, Rerank Factor 65"), TEXT("Astral Create Index: Rerank Factor is 65, not 1 to 64 (0 for 4)"),
		[&](FString& E) { return UAstralBlueprintLibrary::CreateIndex(4, Factor65, Made, E); });
	TestNull(TEXT("no index for factor 65"), Made);
	FAstralIndexOptions FactorMinus1 = Int8F32;
	FactorMinus1.RerankFactor = -1;
	ExpectFailure(*this, TEXT("Create Index, Rerank Factor -1"), TEXT("Astral Create Index: Rerank Factor is -1, not 1 to 64 (0 for 4)"),
		[&](FString& E) { return UAstralBlueprintLibrary::CreateIndex(4, FactorMinus1, Made, E); });
	return true;
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FAstralSaveLoadTest, "Astral.Functional.SaveLoad",
	EAutomationTestFlags::EditorContext | EAutomationTestFlags::ProductFilter)

bool FAstralSaveLoadTest::RunTest(const FString& /*Parameters*/)
{
	using namespace UE::Astral::Tests;

	if (!RequireAstral(*this))
	{
		return false;
	}
	UAstralIndex* Index = Functional::MakeSmallIndex(*this);
	if (Index == nullptr)
	{
		return false;
	}
	FString Error;

	// Through bytes, as a save game stores them.
	TArray<uint8> Bytes;
	const bool bSavedBytes = UAstralBlueprintLibrary::SaveIndexToBytes(Index, Bytes, Error) == EAstralOutcome::Success;
	if (TestTrue(*FString::Printf(TEXT("Save Index To Bytes: %s"), *Error), bSavedBytes))
	{
		TestTrue(TEXT("the bytes hold a header at least"), Bytes.Num() >= 128);
		UAstralIndex* FromBytes = nullptr;
		const bool bLoadedBytes = UAstralBlueprintLibrary::LoadIndexFromBytes(Bytes, FromBytes, Error) == EAstralOutcome::Success;
		if (TestTrue(*FString::Printf(TEXT("Load Index From Bytes: %s"), *Error), bLoadedBytes) && TestNotNull(TEXT("an index from bytes"), FromBytes))
		{
			TestEqual(TEXT("the loaded index knows its dimension"), FromBytes->GetDimension(), 4);
			Functional::ExpectSameAnswers(*this, TEXT("bytes"), Index, FromBytes);
			FAstralStats Stats;
			if (TestTrue(TEXT("Get Stats of the loaded index"), UAstralBlueprintLibrary::GetStats(FromBytes, Stats, Error) == EAstralOutcome::Success))
			{
				TestEqual(TEXT("the four vectors came back"), Stats.Count, static_cast<int64>(4));
				TestTrue(TEXT("the metric came back"), Stats.Metric == EAstralMetric::Cosine);
				TestTrue(TEXT("the kind came back"), Stats.Kind == EAstralIndexKind::Flat);
			}
			// A loaded index is a whole index: it takes adds, and batches of its dimension.
			TestTrue(TEXT("Add to the loaded index"), UAstralBlueprintLibrary::AddVector(FromBytes, 20, { 0.0f, 0.0f, 0.0f, 1.0f }, Error) == EAstralOutcome::Success);
			TArray<FAstralResult> Results;
			TArray<int32> Counts;
			const TArray<FAstralVector> Queries = { Functional::Row(Functional::Vec(0.0f, 0.0f, 0.0f, 1.0f)), Functional::Row(Functional::Vec(1.0f, 0.0f, 0.0f, 0.0f)) };
			TestTrue(TEXT("Find Nearest (Batch) on the loaded index"), UAstralBlueprintLibrary::FindNearestBatch(FromBytes, Queries, 1, FAstralQueryFilter(), Results, Counts, Error) == EAstralOutcome::Success);
			if (TestEqual(TEXT("a hit per query"), Results.Num(), 2))
			{
				TestEqual(TEXT("the added vector is found"), Results[0].Id, static_cast<int64>(20));
				TestEqual(TEXT("and a loaded one"), Results[1].Id, static_cast<int64>(10));
			}
		}
	}

	// Through a file: saved under a relative path, which is under Saved/,
	// and loaded back by that full path.
	const FString FullPath = FPaths::Combine(FPaths::ConvertRelativePathToFull(FPaths::ProjectSavedDir()), Functional::SavedIndexPath);
	const bool bSavedFile = UAstralBlueprintLibrary::SaveIndexToFile(Index, Functional::SavedIndexPath, Error) == EAstralOutcome::Success;
	if (TestTrue(*FString::Printf(TEXT("Save Index To File: %s"), *Error), bSavedFile))
	{
		UAstralIndex* FromFile = nullptr;
		const bool bLoadedFile = UAstralBlueprintLibrary::LoadIndexFromFile(FullPath, FromFile, Error) == EAstralOutcome::Success;
		if (TestTrue(*FString::Printf(TEXT("Load Index From File, full path: %s"), *Error), bLoadedFile) && TestNotNull(TEXT("an index from the file"), FromFile))
		{
			TestEqual(TEXT("the loaded index knows its dimension"), FromFile->GetDimension(), 4);
			Functional::ExpectSameAnswers(*this, TEXT("file"), Index, FromFile);
			TestTrue(TEXT("an index checked whole when loaded verifies at once"), UAstralBlueprintLibrary::VerifyIndex(FromFile, Error) == EAstralOutcome::Success);
		}

		// The bulk checked in the background; Verify Index waits for it.
		UAstralIndex* Background = nullptr;
		const bool bLoadedBackground = UAstralBlueprintLibrary::LoadIndexFromFile(Functional::SavedIndexPath, Background, Error, true) == EAstralOutcome::Success;
		if (TestTrue(*FString::Printf(TEXT("Load Index From File, verify in background: %s"), *Error), bLoadedBackground)
			&& TestNotNull(TEXT("an index verified in the background"), Background))
		{
			const bool bVerified = UAstralBlueprintLibrary::VerifyIndex(Background, Error) == EAstralOutcome::Success;
			TestTrue(*FString::Printf(TEXT("Verify Index on a whole file: %s"), *Error), bVerified);
			Functional::ExpectSameAnswers(*this, TEXT("file, verified in the background"), Index, Background);
		}

		// Saving over a file a live index has loaded replaces it safely.
		TestTrue(TEXT("Save Index To File over a loaded file"), UAstralBlueprintLibrary::SaveIndexToFile(Index, FullPath, Error) == EAstralOutcome::Success);
		if (FromFile != nullptr)
		{
			Functional::ExpectSameAnswers(*this, TEXT("file, after it was saved over"), Index, FromFile);
		}
	}

	TestTrue(TEXT("Verify Index on an index made by Create Index"), UAstralBlueprintLibrary::VerifyIndex(Index, Error) == EAstralOutcome::Success);
	return true;
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FAstralCorruptDataTest, "Astral.Functional.CorruptData",
	EAutomationTestFlags::EditorContext | EAutomationTestFlags::ProductFilter)

bool FAstralCorruptDataTest::RunTest(const FString& /*Parameters*/)
{
	using namespace UE::Astral::Tests;
	using Functional::ExpectFailure;

	if (!RequireAstral(*this))
	{
		return false;
	}
	UAstralIndex* Index = Functional::MakeSmallIndex(*this);
	TArray<uint8> Bytes;
	FString Error;
	if (Index == nullptr || !TestTrue(TEXT("Save Index To Bytes"), UAstralBlueprintLibrary::SaveIndexToBytes(Index, Bytes, Error) == EAstralOutcome::Success) || Bytes.Num() < 2)
	{
		return false;
	}
	// The damage found depends on where it is: the library is asked first,
	// through the table (which logs nothing), so that each expected error
	// is the node's whole message.
	const FString Corrupt = TEXT("Astral Load Index From Bytes: corrupt data: astral_index_load_from_memory: astral: corrupt index data: ");
	auto ExpectCorrupt = [this, &Corrupt](const TCHAR* What, const TArray<uint8>& Damaged, const TCHAR* Found)
	{
		AstralIndex Handle = ASTRAL_INDEX_NONE;
		const AstralStatus Status = UE::Astral::GApi.astral_index_load_from_memory(Damaged.GetData(), static_cast<size_t>(Damaged.Num()), &Handle);
		if (Handle != ASTRAL_INDEX_NONE)
		{
			UE::Astral::GApi.astral_index_destroy(Handle);
		}
		if (!TestEqual(*FString::Printf(TEXT("%s: the library finds corrupt data"), What), static_cast<int32>(Status), static_cast<int32>(ASTRAL_E_CORRUPT)))
		{
			return;
		}
		const FString Expected = UE::Astral::DescribeFailure(TEXT("Load Index From Bytes"), Status);
		AddExpectedError(Expected, EAutomationExpectedErrorFlags::Exact, 1, false);
		UAstralIndex* Refused = nullptr;
		FString Why;
		TestTrue(*FString::Printf(TEXT("%s fails"), What), UAstralBlueprintLibrary::LoadIndexFromBytes(Damaged, Refused, Why) == EAstralOutcome::Failure);
		TestEqual(*FString::Printf(TEXT("%s: the message"), What), Why, Expected);
		TestTrue(*FString::Printf(TEXT("%s: corrupt data (got \"%s\")"), What, *Why), Why.StartsWith(Corrupt, ESearchCase::CaseSensitive));
		if (Found != nullptr)
		{
			TestEqual(*FString::Printf(TEXT("%s: the damage found"), What), Why, Corrupt + Found);
		}
		TestNull(*FString::Printf(TEXT("%s: no index"), What), Refused);
	};

	// Damage must fail with corrupt data, never crash nor load.
	TArray<uint8> Flipped = Bytes;
	const int32 Middle = Flipped.Num() / 2;
	Flipped[Middle] = static_cast<uint8>(Flipped[Middle] ^ 0xFF);
	ExpectCorrupt(TEXT("Load Index From Bytes, a byte flipped in the middle"), Flipped, nullptr);
	ExpectCorrupt(TEXT("Load Index From Bytes, cut in half"), TArray<uint8>(Bytes.GetData(), Bytes.Num() / 2), nullptr);
	ExpectCorrupt(TEXT("Load Index From Bytes, 3 bytes"), TArray<uint8>(Bytes.GetData(), 3), TEXT("truncated: 3 bytes, less than the 128-byte header"));
	ExpectCorrupt(TEXT("Load Index From Bytes, none"), TArray<uint8>(), TEXT("truncated: 0 bytes, less than the 128-byte header"));

	UAstralIndex* Loaded = nullptr;
	// The whole bytes still load: only the damage was refused.
	TestTrue(TEXT("Load Index From Bytes, undamaged"), UAstralBlueprintLibrary::LoadIndexFromBytes(Bytes, Loaded, Error) == EAstralOutcome::Success);
	TestNotNull(TEXT("an index from the undamaged bytes"), Loaded);
	return true;
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FAstralSaveLoadBadInputTest, "Astral.Functional.SaveLoadBadInput",
	EAutomationTestFlags::EditorContext | EAutomationTestFlags::ProductFilter)

bool FAstralSaveLoadBadInputTest::RunTest(const FString& /*Parameters*/)
{
	using namespace UE::Astral::Tests;
	using Functional::ExpectFailure;

	if (!RequireAstral(*this))
	{
		return false;
	}
	FString Error;
	TArray<uint8> Bytes = { 1, 2, 3 };
	ExpectFailure(*this, TEXT("Save Index To File, None"), TEXT("Astral Save Index To File: Index is None"),
		[](FString& E) { return UAstralBlueprintLibrary::SaveIndexToFile(nullptr, Functional::SavedIndexPath, E); });
	ExpectFailure(*this, TEXT("Save Index To Bytes, None"), TEXT("Astral Save Index To Bytes: Index is None"),
		[&Bytes](FString& E) { return UAstralBlueprintLibrary::SaveIndexToBytes(nullptr, Bytes, E); });
	TestEqual(TEXT("no bytes after a failed save"), Bytes.Num(), 0);
	ExpectFailure(*this, TEXT("Verify Index, None"), TEXT("Astral Verify Index: Index is None"),
		[](FString& E) { return UAstralBlueprintLibrary::VerifyIndex(nullptr, E); });

	UAstralIndex* Unmade = NewObject<UAstralIndex>(GetTransientPackage());
	ExpectFailure(*this, TEXT("Save an index not made by a node"), TEXT("Astral Save Index To Bytes: Index was not made by Create Index or a Load Index node"),
		[&](FString& E) { return UAstralBlueprintLibrary::SaveIndexToBytes(Unmade, Bytes, E); });

	UAstralIndex* Index = Functional::MakeSmallIndex(*this);
	if (Index == nullptr)
	{
		return false;
	}
	ExpectFailure(*this, TEXT("Save Index To File, empty path"), TEXT("Astral Save Index To File: File Path is empty"),
		[&](FString& E) { return UAstralBlueprintLibrary::SaveIndexToFile(Index, FString(), E); });

	UAstralIndex* Loaded = nullptr;
	ExpectFailure(*this, TEXT("Load Index From File, empty path"), TEXT("Astral Load Index From File: File Path is empty"),
		[&](FString& E) { return UAstralBlueprintLibrary::LoadIndexFromFile(FString(), Loaded, E); });
	TestNull(TEXT("no index from an empty path"), Loaded);
	const FString Missing = FString::Printf(TEXT("Astral Load Index From File: no index file at %s"),
		*FPaths::Combine(FPaths::ConvertRelativePathToFull(FPaths::ProjectSavedDir()), TEXT("Astral/Tests/NoSuchIndex.idx")));
	AddExpectedError(Missing, EAutomationExpectedErrorFlags::Exact, 2, false);
	for (const bool bInBackground : { false, true })
	{
		TestTrue(TEXT("Load Index From File, no such file"),
			UAstralBlueprintLibrary::LoadIndexFromFile(TEXT("Astral/Tests/NoSuchIndex.idx"), Loaded, Error, bInBackground) == EAstralOutcome::Failure);
		TestEqual(TEXT("no index file"), Error, Missing);
		TestNull(TEXT("no index from a missing file"), Loaded);
	}

	// The failed calls changed nothing.
	TArray<FAstralResult> Results;
	TestTrue(TEXT("the index still answers"), UAstralBlueprintLibrary::FindNearest(Index, { 1.0f, 0.0f, 0.0f, 0.0f }, 1, FAstralQueryFilter(), Results, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), Error) == EAstralOutcome::Success);
	return true;
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FAstralScopedQueryTest, "Astral.Functional.ScopedQuery",
	EAutomationTestFlags::EditorContext | EAutomationTestFlags::ProductFilter)

bool FAstralScopedQueryTest::RunTest(const FString& /*Parameters*/)
{
	using namespace UE::Astral::Tests;

	if (!RequireAstral(*this))
	{
		return false;
	}
	// The scenario's deliberate failures, each logged once.
	for (const TCHAR* Expected : {
			 TEXT("Astral Remove Memory: id not found: astral_index_remove: astral: id not found: id 1"),
			 TEXT("Astral Memory Count: Index was released (Release Index)"),
			 TEXT("Astral Contains Memory: Index was released (Release Index)"),
			 TEXT("Astral Add Vector: Index was released (Release Index)") })
	{
		AddExpectedError(Expected, EAutomationExpectedErrorFlags::Exact, 1, false);
	}
	const UObject* OwnerA = NewObject<UAstralIndex>(GetTransientPackage());
	const UObject* OwnerB = NewObject<UAstralIndex>(GetTransientPackage());
	const FString SavePath = FPaths::Combine(FPaths::ConvertRelativePathToFull(FPaths::ProjectSavedDir()), TEXT("Astral/Tests/Scoped.idx"));
	Scoped::Run([this](bool bOk, const FString& What) { TestTrue(What, bOk); }, OwnerA, OwnerB, SavePath);
	return true;
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FAstralRecallTest, "Astral.Functional.Recall",
	EAutomationTestFlags::EditorContext | EAutomationTestFlags::ProductFilter)

bool FAstralRecallTest::RunTest(const FString& /*Parameters*/)
{
	using namespace UE::Astral::Tests;

	if (!RequireAstral(*this))
	{
		return false;
	}
	// The scenario's deliberate failures, each logged once; unreal_nodes checks the same lines on the real library.
	for (const FString& Expected : Recall::ExpectedErrors())
	{
		AddExpectedError(Expected, EAutomationExpectedErrorFlags::Exact, 1, false);
	}
	const FString SavePath = FPaths::Combine(FPaths::ConvertRelativePathToFull(FPaths::ProjectSavedDir()), TEXT("Astral/Tests/Recall.idx"));
	Recall::Run([this](bool bOk, const FString& What) { TestTrue(What, bOk); }, SavePath);
	return true;
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FAstralAsyncQueryTest, "Astral.Functional.AsyncQuery",
	EAutomationTestFlags::EditorContext | EAutomationTestFlags::ProductFilter)

bool FAstralAsyncQueryTest::RunTest(const FString& /*Parameters*/)
{
	using namespace UE::Astral::Tests;

	if (!RequireAstral(*this))
	{
		return false;
	}
	UAstralIndex* Index = Functional::MakeSmallIndex(*this);
	if (Index == nullptr)
	{
		return false;
	}
	const TArray<float> Vector = { 0.0f, 1.0f, 0.0f, 0.0f };
	TArray<FAstralResult> Expected;
	FString Error;
	if (UAstralBlueprintLibrary::FindNearest(Index, Vector, 3, FAstralQueryFilter(), Expected, UE::Astral::Tests::Unread<bool>(), UE::Astral::Tests::Unread<float>(), Error) != EAstralOutcome::Success)
	{
		AddError(Error);
		return false;
	}

	/** Written by the callbacks and read by the latent command, all on the game thread. */
	struct FOutcome
	{
		bool bDone = false;
		bool bSucceeded = false;
		bool bOnGameThread = false;
		TArray<FAstralResult> Results;
		FString Error;
	};
	const TSharedRef<FOutcome> Good = MakeShared<FOutcome>();
	const TSharedRef<FOutcome> Bad = MakeShared<FOutcome>();
	auto Record = [](const TSharedRef<FOutcome>& Outcome)
	{
		return [Outcome](bool bSucceeded, TArray<FAstralResult>&& Results, FString&& QueryError)
		{
			Outcome->bDone = true;
			Outcome->bSucceeded = bSucceeded;
			Outcome->bOnGameThread = IsInGameThread();
			Outcome->Results = MoveTemp(Results);
			Outcome->Error = MoveTemp(QueryError);
		};
	};

	// The tasks hold the native index: the UObject may be collected meanwhile.
	const TSharedRef<FAstralNativeIndex, ESPMode::ThreadSafe> Native = Index->GetNative().ToSharedRef();
	// The whole message, once: unreal_async_gc checks the same text on the real library.
	AddExpectedError(TEXT("Astral Find Nearest: the vector has 2 floats, not the index's dimension 4"), EAutomationExpectedErrorFlags::Exact, 1, false);
	FAstralNativeIndex::FindNearestAsync(Native, Vector, 3, FAstralQueryFilter(), true, Record(Good));
	FAstralNativeIndex::FindNearestAsync(Native, { 1.0f, 2.0f }, 3, FAstralQueryFilter(), true, Record(Bad));

	const double Deadline = FPlatformTime::Seconds() + 30.0;
	ADD_LATENT_AUTOMATION_COMMAND(FFunctionLatentCommand([this, Good, Bad, Expected, Deadline]() -> bool
	{
		if (!Good->bDone || !Bad->bDone)
		{
			if (FPlatformTime::Seconds() < Deadline)
			{
				return false; // look again next frame
			}
			AddError(TEXT("the async queries did not finish within 30 s"));
			return true;
		}
		TestTrue(TEXT("the async query succeeds"), Good->bSucceeded);
		TestTrue(TEXT("its outcome arrives on the game thread"), Good->bOnGameThread);
		if (TestEqual(TEXT("as many hits as Query"), Good->Results.Num(), Expected.Num()))
		{
			for (int32 Hit = 0; Hit < Expected.Num(); ++Hit)
			{
				TestEqual(TEXT("the same ids as Query"), Good->Results[Hit].Id, Expected[Hit].Id);
			}
		}
		TestFalse(TEXT("a bad async query fails"), Bad->bSucceeded);
		TestTrue(TEXT("its failure arrives on the game thread"), Bad->bOnGameThread);
		TestEqual(TEXT("and says why"), Bad->Error, FString(TEXT("Astral Find Nearest: the vector has 2 floats, not the index's dimension 4")));
		TestEqual(TEXT("with no results"), Bad->Results.Num(), 0);
		return true;
	}));
	return true;
}

#endif // WITH_DEV_AUTOMATION_TESTS
