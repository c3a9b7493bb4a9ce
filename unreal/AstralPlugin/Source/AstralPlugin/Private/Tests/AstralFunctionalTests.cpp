// Functional tests of the Blueprint nodes and the async query path:
// add, query, remove, batches, stats, save and load, and bad input that must
// fail cleanly.

#include "CoreMinimal.h"

#if WITH_DEV_AUTOMATION_TESTS

#include "AstralBlueprintLibrary.h"
#include "AstralIndex.h"
#include "AstralNativeIndex.h"
#include "CoreGlobals.h"
#include "HAL/PlatformTime.h"
#include "Misc/AutomationTest.h"
#include "Misc/Paths.h"
#include "Tests/AstralTestHelpers.h"
#include "UObject/Package.h"

#include <limits>

namespace UE::Astral::Tests::Functional
{
	/** A 4-float index holding 10 (1,0,0,0), 11 (0,1,0,0), 12 (0,0,1,0) and 13 (0.9,0.1,0,0). */
	static UAstralIndex* MakeSmallIndex(FAutomationTestBase& Test)
	{
		UAstralIndex* Index = nullptr;
		FString Error;
		if (!UAstralBlueprintLibrary::CreateIndex(4, EAstralMetric::Cosine, EAstralIndexKind::Flat, Index, Error))
		{
			Test.AddError(Error);
			return nullptr;
		}
		const bool bAdded = UAstralBlueprintLibrary::Add(Index, 10, { 1.0f, 0.0f, 0.0f, 0.0f }, Error)
			&& UAstralBlueprintLibrary::Add(Index, 11, { 0.0f, 1.0f, 0.0f, 0.0f }, Error)
			&& UAstralBlueprintLibrary::AddBatch(Index, { 12, 13 }, { 0.0f, 0.0f, 1.0f, 0.0f, 0.9f, 0.1f, 0.0f, 0.0f }, Error);
		if (!bAdded)
		{
			Test.AddError(Error);
			return nullptr;
		}
		return Index;
	}

	/** Checks that a node failed, left a message containing Expected, and returned no results. */
	static void ExpectFailure(FAutomationTestBase& Test, const TCHAR* What, bool bSucceeded, const FString& Error, const TCHAR* Expected)
	{
		Test.TestFalse(*FString::Printf(TEXT("%s fails"), What), bSucceeded);
		Test.TestTrue(*FString::Printf(TEXT("%s says \"%s\" (got \"%s\")"), What, Expected, *Error), Error.Contains(Expected));
	}

	/** Under the project's Saved folder; each run replaces it. */
	static const TCHAR* const SavedIndexPath = TEXT("Astral/Tests/SaveLoad.idx");

	/**
	 * Queries Expected and Actual with each stored direction, one never
	 * stored and one in between: a saved and loaded index must give the
	 * same ids and the same scores, bit for bit.
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
		for (const float (&Row)[4] : Queries)
		{
			const TArray<float> Vector(Row, 4);
			TArray<FAstralResult> Want;
			TArray<FAstralResult> Got;
			FString WantError;
			FString GotError;
			const bool bWant = UAstralBlueprintLibrary::Query(Expected, Vector, 4, Want, WantError);
			const bool bGot = UAstralBlueprintLibrary::Query(Actual, Vector, 4, Got, GotError);
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
	TestTrue(TEXT("Query"), UAstralBlueprintLibrary::Query(Index, { 1.0f, 0.0f, 0.0f, 0.0f }, 2, Results, Error));
	if (TestEqual(TEXT("Query returns K hits"), Results.Num(), 2))
	{
		TestEqual(TEXT("the nearest is the same direction"), Results[0].Id, static_cast<int64>(10));
		TestEqual(TEXT("then the one closest in angle"), Results[1].Id, static_cast<int64>(13));
		TestTrue(TEXT("cosine of the same direction is about 1"), Results[0].Score > 0.99f && Results[0].Score < 1.01f);
		TestTrue(TEXT("best first"), Results[0].Score >= Results[1].Score);
	}

	TestTrue(TEXT("Query with K above the count"), UAstralBlueprintLibrary::Query(Index, { 1.0f, 0.0f, 0.0f, 0.0f }, 10, Results, Error));
	TestEqual(TEXT("as many hits as stored vectors"), Results.Num(), 4);

	TestTrue(TEXT("Remove"), UAstralBlueprintLibrary::Remove(Index, { 10 }, Error));
	TestTrue(TEXT("Query after Remove"), UAstralBlueprintLibrary::Query(Index, { 1.0f, 0.0f, 0.0f, 0.0f }, 1, Results, Error));
	if (TestEqual(TEXT("one hit"), Results.Num(), 1))
	{
		TestEqual(TEXT("the removed id is gone"), Results[0].Id, static_cast<int64>(13));
	}

	FAstralStats Stats;
	if (TestTrue(TEXT("Get Stats"), UAstralBlueprintLibrary::GetStats(Index, Stats, Error)))
	{
		TestEqual(TEXT("stats count"), Stats.Count, static_cast<int64>(3));
		TestEqual(TEXT("stats dimension"), Stats.Dimension, 4);
		TestTrue(TEXT("stats metric"), Stats.Metric == EAstralMetric::Cosine);
		TestTrue(TEXT("stats kind"), Stats.Kind == EAstralIndexKind::Flat);
		TestTrue(TEXT("stats bytes"), Stats.Bytes > 0);
		TestFalse(TEXT("stats kernel"), Stats.Kernel.IsEmpty());
	}

	// Ids keep all 64 bits through int64, negative ones too.
	TestTrue(TEXT("Add a negative id"), UAstralBlueprintLibrary::Add(Index, -5, { 0.0f, 0.0f, 0.0f, 1.0f }, Error));
	TestTrue(TEXT("Query for it"), UAstralBlueprintLibrary::Query(Index, { 0.0f, 0.0f, 0.0f, 1.0f }, 1, Results, Error));
	if (TestEqual(TEXT("one hit"), Results.Num(), 1))
	{
		TestEqual(TEXT("the negative id comes back"), Results[0].Id, static_cast<int64>(-5));
	}
	const int64 Largest = std::numeric_limits<int64>::max();
	TestTrue(TEXT("Add the largest id"), UAstralBlueprintLibrary::Add(Index, Largest, { 0.0f, 0.5f, 0.5f, 0.0f }, Error));
	TestTrue(TEXT("Remove it"), UAstralBlueprintLibrary::Remove(Index, { Largest }, Error));
	return true;
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FAstralQueryBatchTest, "Astral.Functional.QueryBatch",
	EAutomationTestFlags::EditorContext | EAutomationTestFlags::ProductFilter)

bool FAstralQueryBatchTest::RunTest(const FString& /*Parameters*/)
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
	const TArray<float> Queries = { 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f };
	TArray<FAstralResult> Results;
	TArray<int32> Counts;
	FString Error;
	TestTrue(TEXT("Query Batch"), UAstralBlueprintLibrary::QueryBatch(Index, Queries, 1, Results, Counts, Error));
	if (TestEqual(TEXT("a count per query"), Counts.Num(), 2) && TestEqual(TEXT("a hit per query"), Results.Num(), 2))
	{
		TestEqual(TEXT("query 0"), Results[0].Id, static_cast<int64>(10));
		TestEqual(TEXT("query 1"), Results[1].Id, static_cast<int64>(11));
	}

	// Each batch row equals the single query.
	TestTrue(TEXT("Query Batch, K 3"), UAstralBlueprintLibrary::QueryBatch(Index, Queries, 3, Results, Counts, Error));
	for (int32 Row = 0; Row < 2 && Counts.Num() == 2 && Results.Num() == 6; ++Row)
	{
		TArray<FAstralResult> Single;
		const TArray<float> Vector(Queries.GetData() + Row * 4, 4);
		TestTrue(TEXT("Query"), UAstralBlueprintLibrary::Query(Index, Vector, 3, Single, Error));
		TestEqual(TEXT("count"), Counts[Row], Single.Num());
		for (int32 Hit = 0; Hit < Single.Num(); ++Hit)
		{
			TestEqual(TEXT("same id as Query"), Results[Row * 3 + Hit].Id, Single[Hit].Id);
		}
	}

	// Fewer vectors than K: every query's hits follow each other, no gaps.
	TestTrue(TEXT("Query Batch, K 8"), UAstralBlueprintLibrary::QueryBatch(Index, Queries, 8, Results, Counts, Error));
	if (TestEqual(TEXT("two counts"), Counts.Num(), 2))
	{
		TestEqual(TEXT("all four stored"), Counts[0], 4);
		TestEqual(TEXT("hits back to back"), Results.Num(), Counts[0] + Counts[1]);
	}

	TestTrue(TEXT("an empty batch"), UAstralBlueprintLibrary::QueryBatch(Index, TArray<float>(), 5, Results, Counts, Error));
	TestEqual(TEXT("no counts"), Counts.Num(), 0);
	return true;
}

IMPLEMENT_SIMPLE_AUTOMATION_TEST(FAstralBadInputTest, "Astral.Functional.BadInput",
	EAutomationTestFlags::EditorContext | EAutomationTestFlags::ProductFilter)

bool FAstralBadInputTest::RunTest(const FString& /*Parameters*/)
{
	using namespace UE::Astral::Tests;
	using Functional::ExpectFailure;

	if (!RequireAstral(*this))
	{
		return false;
	}
	// Every failure below is logged to LogAstral as a warning, on purpose.
	AddExpectedError(TEXT("Astral "), EAutomationExpectedErrorFlags::Contains, 0);

	FString Error;
	TArray<FAstralResult> Results;
	TArray<int32> Counts;
	FAstralStats Stats;
	const TArray<float> Good = { 1.0f, 0.0f, 0.0f, 0.0f };

	UAstralIndex* Made = nullptr;
	ExpectFailure(*this, TEXT("Create Index, dimension 0"), UAstralBlueprintLibrary::CreateIndex(0, EAstralMetric::Cosine, EAstralIndexKind::Flat, Made, Error), Error, TEXT("Dimension is 0"));
	TestNull(TEXT("no index for dimension 0"), Made);
	ExpectFailure(*this, TEXT("Create Index, dimension 4097"), UAstralBlueprintLibrary::CreateIndex(ASTRAL_MAX_DIMENSION + 1, EAstralMetric::Cosine, EAstralIndexKind::Flat, Made, Error), Error, TEXT("not 1 to"));
	// HNSW is a valid kind: creating one succeeds (its search is covered by the C tests).
	TestTrue(TEXT("Create Index, HNSW"), UAstralBlueprintLibrary::CreateIndex(4, EAstralMetric::Cosine, EAstralIndexKind::Hnsw, Made, Error));
	TestNotNull(TEXT("an HNSW index"), Made);

	ExpectFailure(*this, TEXT("Add to None"), UAstralBlueprintLibrary::Add(nullptr, 1, Good, Error), Error, TEXT("Index is None"));
	ExpectFailure(*this, TEXT("Add Batch to None"), UAstralBlueprintLibrary::AddBatch(nullptr, { 1 }, Good, Error), Error, TEXT("Index is None"));
	ExpectFailure(*this, TEXT("Remove from None"), UAstralBlueprintLibrary::Remove(nullptr, { 1 }, Error), Error, TEXT("Index is None"));
	ExpectFailure(*this, TEXT("Query None"), UAstralBlueprintLibrary::Query(nullptr, Good, 1, Results, Error), Error, TEXT("Index is None"));
	ExpectFailure(*this, TEXT("Query Batch on None"), UAstralBlueprintLibrary::QueryBatch(nullptr, Good, 1, Results, Counts, Error), Error, TEXT("Index is None"));
	ExpectFailure(*this, TEXT("Get Stats of None"), UAstralBlueprintLibrary::GetStats(nullptr, Stats, Error), Error, TEXT("Index is None"));

	UAstralIndex* Unmade = NewObject<UAstralIndex>(GetTransientPackage());
	ExpectFailure(*this, TEXT("Query an index not made by Create Index"), UAstralBlueprintLibrary::Query(Unmade, Good, 1, Results, Error), Error, TEXT("not made by Create Index"));

	UAstralIndex* Index = Functional::MakeSmallIndex(*this);
	if (Index == nullptr)
	{
		return false;
	}
	ExpectFailure(*this, TEXT("Add a short vector"), UAstralBlueprintLibrary::Add(Index, 1, { 1.0f, 2.0f }, Error), Error, TEXT("dimension mismatch"));
	ExpectFailure(*this, TEXT("Add an empty vector"), UAstralBlueprintLibrary::Add(Index, 1, TArray<float>(), Error), Error, TEXT("dimension mismatch"));
	ExpectFailure(*this, TEXT("Add NaN"), UAstralBlueprintLibrary::Add(Index, 1, { std::numeric_limits<float>::quiet_NaN(), 0.0f, 0.0f, 0.0f }, Error), Error, TEXT("non-finite"));
	ExpectFailure(*this, TEXT("Add infinity"), UAstralBlueprintLibrary::Add(Index, 1, { std::numeric_limits<float>::infinity(), 0.0f, 0.0f, 0.0f }, Error), Error, TEXT("non-finite"));
	ExpectFailure(*this, TEXT("Add a stored id"), UAstralBlueprintLibrary::Add(Index, 10, Good, Error), Error, TEXT("duplicate id"));
	ExpectFailure(*this, TEXT("Add Batch, one id twice"), UAstralBlueprintLibrary::AddBatch(Index, { 20, 20 }, { 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f }, Error), Error, TEXT("duplicate id"));
	ExpectFailure(*this, TEXT("Add Batch, fewer vectors than ids"), UAstralBlueprintLibrary::AddBatch(Index, { 21, 22 }, Good, Error), Error, TEXT("dimension mismatch"));
	ExpectFailure(*this, TEXT("Remove an id never stored"), UAstralBlueprintLibrary::Remove(Index, { 11, 999 }, Error), Error, TEXT("id not found"));
	ExpectFailure(*this, TEXT("Query, K 0"), UAstralBlueprintLibrary::Query(Index, Good, 0, Results, Error), Error, TEXT("K is 0"));
	TestEqual(TEXT("no results after a failure"), Results.Num(), 0);
	ExpectFailure(*this, TEXT("Query, K above the limit"), UAstralBlueprintLibrary::Query(Index, Good, ASTRAL_MAX_K + 1, Results, Error), Error, TEXT("not 1 to"));
	ExpectFailure(*this, TEXT("Query, negative K"), UAstralBlueprintLibrary::Query(Index, Good, -3, Results, Error), Error, TEXT("K is -3"));
	ExpectFailure(*this, TEXT("Query, wrong dimension"), UAstralBlueprintLibrary::Query(Index, { 1.0f, 0.0f }, 1, Results, Error), Error, TEXT("dimension mismatch"));
	TestEqual(TEXT("no results after a failed query"), Results.Num(), 0);
	ExpectFailure(*this, TEXT("Query, NaN"), UAstralBlueprintLibrary::Query(Index, { std::numeric_limits<float>::quiet_NaN(), 0.0f, 0.0f, 0.0f }, 1, Results, Error), Error, TEXT("non-finite"));
	ExpectFailure(*this, TEXT("Query Batch, a partial query"), UAstralBlueprintLibrary::QueryBatch(Index, { 1.0f, 0.0f, 0.0f, 0.0f, 1.0f }, 1, Results, Counts, Error), Error, TEXT("not whole queries"));
	TestEqual(TEXT("no counts after a failed batch"), Counts.Num(), 0);

	// All or nothing: the failed calls above changed nothing.
	if (TestTrue(TEXT("Get Stats"), UAstralBlueprintLibrary::GetStats(Index, Stats, Error)))
	{
		TestEqual(TEXT("still the four vectors"), Stats.Count, static_cast<int64>(4));
	}
	TestTrue(TEXT("the index still answers"), UAstralBlueprintLibrary::Query(Index, Good, 1, Results, Error));
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
	const TArray<float> Vectors = { 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.9f, 0.1f, 0.0f, 0.0f };
	for (const EAstralStorage Storage : Storages)
	{
		for (const EAstralRerank Rerank : Reranks)
		{
			// Factor 4 with None too: the node's default must not make it fail.
			const int32 Factor = Storage == EAstralStorage::Int8 ? 64 : 4;
			const FString What = FString::Printf(TEXT("storage %d, rerank %d"), static_cast<int32>(Storage), static_cast<int32>(Rerank));
			UAstralIndex* Index = nullptr;
			FString Error;
			const bool bCreated = UAstralBlueprintLibrary::CreateIndex(4, EAstralMetric::Cosine, EAstralIndexKind::Flat, Index, Error, Storage, Rerank, Factor);
			if (!TestTrue(*FString::Printf(TEXT("Create Index, %s: %s"), *What, *Error), bCreated))
			{
				continue;
			}
			TestTrue(*FString::Printf(TEXT("Add Batch, %s"), *What), UAstralBlueprintLibrary::AddBatch(Index, { 10, 11, 12, 13 }, Vectors, Error));
			TArray<FAstralResult> Results;
			TestTrue(*FString::Printf(TEXT("Query, %s"), *What), UAstralBlueprintLibrary::Query(Index, { 1.0f, 0.0f, 0.0f, 0.0f }, 2, Results, Error));
			if (TestEqual(*FString::Printf(TEXT("two hits, %s"), *What), Results.Num(), 2))
			{
				TestEqual(*FString::Printf(TEXT("a stored vector finds itself, %s"), *What), Results[0].Id, static_cast<int64>(10));
				TestEqual(*FString::Printf(TEXT("then the nearest in angle, %s"), *What), Results[1].Id, static_cast<int64>(13));
				// One-byte kinds round; a rerank copy scores exactly (F32) or to F16.
				const float Tolerance = Rerank == EAstralRerank::F32 ? 1.e-5f : Rerank == EAstralRerank::F16 ? 2.e-3f : 0.05f;
				TestEqual(*FString::Printf(TEXT("its cosine is about 1, %s"), *What), Results[0].Score, 1.0f, Tolerance);
			}
			FAstralStats Stats;
			if (TestTrue(*FString::Printf(TEXT("Get Stats, %s"), *What), UAstralBlueprintLibrary::GetStats(Index, Stats, Error)))
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
	if (TestTrue(TEXT("Create Index, Int8"), UAstralBlueprintLibrary::CreateIndex(4, EAstralMetric::Cosine, EAstralIndexKind::Flat, Plain, Error, EAstralStorage::Int8))
		&& TestTrue(TEXT("Create Index, Int8 + F32, factor 0"), UAstralBlueprintLibrary::CreateIndex(4, EAstralMetric::Cosine, EAstralIndexKind::Flat, Copied, Error, EAstralStorage::Int8, EAstralRerank::F32, 0))
		&& TestTrue(TEXT("Get Stats, Int8"), UAstralBlueprintLibrary::GetStats(Plain, PlainStats, Error))
		&& TestTrue(TEXT("Get Stats, Int8 + F32"), UAstralBlueprintLibrary::GetStats(Copied, CopiedStats, Error)))
	{
		TestEqual(TEXT("factor 0 is the library's 4"), CopiedStats.RerankFactor, static_cast<int32>(ASTRAL_DEFAULT_RERANK_FACTOR));
		TestTrue(TEXT("an F32 copy costs at least 4 bytes per component"), CopiedStats.BytesPerVector - PlainStats.BytesPerVector >= 16.0);
	}

	AddExpectedError(TEXT("Astral "), EAutomationExpectedErrorFlags::Contains, 0);
	UAstralIndex* Made = nullptr;
	ExpectFailure(*this, TEXT("Create Index, Rerank Factor 65"), UAstralBlueprintLibrary::CreateIndex(4, EAstralMetric::Cosine, EAstralIndexKind::Flat, Made, Error, EAstralStorage::Int8, EAstralRerank::F16, 65), Error, TEXT("Rerank Factor is 65, not 1 to 64"));
	TestNull(TEXT("no index for factor 65"), Made);
	ExpectFailure(*this, TEXT("Create Index, Rerank Factor -1"), UAstralBlueprintLibrary::CreateIndex(4, EAstralMetric::Cosine, EAstralIndexKind::Flat, Made, Error, EAstralStorage::Int8, EAstralRerank::F32, -1), Error, TEXT("Rerank Factor is -1"));
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
	const bool bSavedBytes = UAstralBlueprintLibrary::SaveIndexToBytes(Index, Bytes, Error);
	if (TestTrue(*FString::Printf(TEXT("Save Index To Bytes: %s"), *Error), bSavedBytes))
	{
		TestTrue(TEXT("the bytes hold a header at least"), Bytes.Num() >= 128);
		UAstralIndex* FromBytes = nullptr;
		const bool bLoadedBytes = UAstralBlueprintLibrary::LoadIndexFromBytes(Bytes, FromBytes, Error);
		if (TestTrue(*FString::Printf(TEXT("Load Index From Bytes: %s"), *Error), bLoadedBytes) && TestNotNull(TEXT("an index from bytes"), FromBytes))
		{
			TestEqual(TEXT("the loaded index knows its dimension"), FromBytes->GetDimension(), 4);
			Functional::ExpectSameAnswers(*this, TEXT("bytes"), Index, FromBytes);
			FAstralStats Stats;
			if (TestTrue(TEXT("Get Stats of the loaded index"), UAstralBlueprintLibrary::GetStats(FromBytes, Stats, Error)))
			{
				TestEqual(TEXT("the four vectors came back"), Stats.Count, static_cast<int64>(4));
				TestTrue(TEXT("the metric came back"), Stats.Metric == EAstralMetric::Cosine);
				TestTrue(TEXT("the kind came back"), Stats.Kind == EAstralIndexKind::Flat);
			}
			// A loaded index is a whole index: it takes adds, and batches of its dimension.
			TestTrue(TEXT("Add to the loaded index"), UAstralBlueprintLibrary::Add(FromBytes, 20, { 0.0f, 0.0f, 0.0f, 1.0f }, Error));
			TArray<FAstralResult> Results;
			TArray<int32> Counts;
			TestTrue(TEXT("Query Batch on the loaded index"), UAstralBlueprintLibrary::QueryBatch(FromBytes, { 0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f }, 1, Results, Counts, Error));
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
	const bool bSavedFile = UAstralBlueprintLibrary::SaveIndexToFile(Index, Functional::SavedIndexPath, Error);
	if (TestTrue(*FString::Printf(TEXT("Save Index To File: %s"), *Error), bSavedFile))
	{
		UAstralIndex* FromFile = nullptr;
		const bool bLoadedFile = UAstralBlueprintLibrary::LoadIndexFromFile(FullPath, FromFile, Error);
		if (TestTrue(*FString::Printf(TEXT("Load Index From File, full path: %s"), *Error), bLoadedFile) && TestNotNull(TEXT("an index from the file"), FromFile))
		{
			TestEqual(TEXT("the loaded index knows its dimension"), FromFile->GetDimension(), 4);
			Functional::ExpectSameAnswers(*this, TEXT("file"), Index, FromFile);
			TestTrue(TEXT("an index checked whole when loaded verifies at once"), UAstralBlueprintLibrary::VerifyIndex(FromFile, Error));
		}

		// The bulk checked in the background; Verify Index waits for it.
		UAstralIndex* Background = nullptr;
		const bool bLoadedBackground = UAstralBlueprintLibrary::LoadIndexFromFile(Functional::SavedIndexPath, Background, Error, true);
		if (TestTrue(*FString::Printf(TEXT("Load Index From File, verify in background: %s"), *Error), bLoadedBackground)
			&& TestNotNull(TEXT("an index verified in the background"), Background))
		{
			const bool bVerified = UAstralBlueprintLibrary::VerifyIndex(Background, Error);
			TestTrue(*FString::Printf(TEXT("Verify Index on a whole file: %s"), *Error), bVerified);
			Functional::ExpectSameAnswers(*this, TEXT("file, verified in the background"), Index, Background);
		}

		// Saving over a file a live index has loaded replaces it safely.
		TestTrue(TEXT("Save Index To File over a loaded file"), UAstralBlueprintLibrary::SaveIndexToFile(Index, FullPath, Error));
		if (FromFile != nullptr)
		{
			Functional::ExpectSameAnswers(*this, TEXT("file, after it was saved over"), Index, FromFile);
		}
	}

	TestTrue(TEXT("Verify Index on an index made by Create Index"), UAstralBlueprintLibrary::VerifyIndex(Index, Error));
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
	if (Index == nullptr || !TestTrue(TEXT("Save Index To Bytes"), UAstralBlueprintLibrary::SaveIndexToBytes(Index, Bytes, Error)) || Bytes.Num() < 2)
	{
		return false;
	}
	// Every failure below is logged to LogAstral as a warning, on purpose.
	AddExpectedError(TEXT("Astral Load Index From Bytes"), EAutomationExpectedErrorFlags::Contains, 0);

	// Damage must fail with corrupt data, never crash nor load.
	TArray<uint8> Flipped = Bytes;
	const int32 Middle = Flipped.Num() / 2;
	Flipped[Middle] = static_cast<uint8>(Flipped[Middle] ^ 0xFF);
	UAstralIndex* Loaded = nullptr;
	ExpectFailure(*this, TEXT("Load Index From Bytes, a byte flipped in the middle"), UAstralBlueprintLibrary::LoadIndexFromBytes(Flipped, Loaded, Error), Error, TEXT("corrupt data"));
	TestNull(TEXT("no index from flipped bytes"), Loaded);

	const TArray<uint8> Half(Bytes.GetData(), Bytes.Num() / 2);
	ExpectFailure(*this, TEXT("Load Index From Bytes, cut in half"), UAstralBlueprintLibrary::LoadIndexFromBytes(Half, Loaded, Error), Error, TEXT("corrupt data"));
	TestNull(TEXT("no index from half the bytes"), Loaded);

	const TArray<uint8> OneShort(Bytes.GetData(), Bytes.Num() - 1);
	ExpectFailure(*this, TEXT("Load Index From Bytes, one byte short"), UAstralBlueprintLibrary::LoadIndexFromBytes(OneShort, Loaded, Error), Error, TEXT("corrupt data"));
	TestNull(TEXT("no index from bytes one short"), Loaded);

	ExpectFailure(*this, TEXT("Load Index From Bytes, none"), UAstralBlueprintLibrary::LoadIndexFromBytes(TArray<uint8>(), Loaded, Error), Error, TEXT("corrupt data"));
	TestNull(TEXT("no index from no bytes"), Loaded);

	// The whole bytes still load: only the damage was refused.
	TestTrue(TEXT("Load Index From Bytes, undamaged"), UAstralBlueprintLibrary::LoadIndexFromBytes(Bytes, Loaded, Error));
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
	// Every failure below is logged to LogAstral as a warning, on purpose.
	AddExpectedError(TEXT("Astral "), EAutomationExpectedErrorFlags::Contains, 0);

	FString Error;
	TArray<uint8> Bytes = { 1, 2, 3 };
	ExpectFailure(*this, TEXT("Save Index To File, None"), UAstralBlueprintLibrary::SaveIndexToFile(nullptr, Functional::SavedIndexPath, Error), Error, TEXT("Index is None"));
	ExpectFailure(*this, TEXT("Save Index To Bytes, None"), UAstralBlueprintLibrary::SaveIndexToBytes(nullptr, Bytes, Error), Error, TEXT("Index is None"));
	TestEqual(TEXT("no bytes after a failed save"), Bytes.Num(), 0);
	ExpectFailure(*this, TEXT("Verify Index, None"), UAstralBlueprintLibrary::VerifyIndex(nullptr, Error), Error, TEXT("Index is None"));

	UAstralIndex* Unmade = NewObject<UAstralIndex>(GetTransientPackage());
	ExpectFailure(*this, TEXT("Save an index not made by a node"), UAstralBlueprintLibrary::SaveIndexToBytes(Unmade, Bytes, Error), Error, TEXT("not made by Create Index"));

	UAstralIndex* Index = Functional::MakeSmallIndex(*this);
	if (Index == nullptr)
	{
		return false;
	}
	ExpectFailure(*this, TEXT("Save Index To File, empty path"), UAstralBlueprintLibrary::SaveIndexToFile(Index, FString(), Error), Error, TEXT("File Path is empty"));

	UAstralIndex* Loaded = nullptr;
	ExpectFailure(*this, TEXT("Load Index From File, empty path"), UAstralBlueprintLibrary::LoadIndexFromFile(FString(), Loaded, Error), Error, TEXT("File Path is empty"));
	TestNull(TEXT("no index from an empty path"), Loaded);
	ExpectFailure(*this, TEXT("Load Index From File, no such file"), UAstralBlueprintLibrary::LoadIndexFromFile(TEXT("Astral/Tests/NoSuchIndex.idx"), Loaded, Error), Error, TEXT("i/o error"));
	TestNull(TEXT("no index from a missing file"), Loaded);
	ExpectFailure(*this, TEXT("Load Index From File, no such file, in the background"), UAstralBlueprintLibrary::LoadIndexFromFile(TEXT("Astral/Tests/NoSuchIndex.idx"), Loaded, Error, true), Error, TEXT("i/o error"));
	TestNull(TEXT("no index from a missing file, in the background"), Loaded);

	// The failed calls changed nothing.
	TArray<FAstralResult> Results;
	TestTrue(TEXT("the index still answers"), UAstralBlueprintLibrary::Query(Index, { 1.0f, 0.0f, 0.0f, 0.0f }, 1, Results, Error));
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
	if (!UAstralBlueprintLibrary::Query(Index, Vector, 3, Expected, Error))
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
	AddExpectedError(TEXT("Astral Query: dimension mismatch: astral_index_query: query has 2 values, index dimension is 4"),
		EAutomationExpectedErrorFlags::Exact, 1);
	FAstralNativeIndex::QueryAsync(Native, Vector, 3, Record(Good));
	FAstralNativeIndex::QueryAsync(Native, { 1.0f, 2.0f }, 3, Record(Bad));

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
		TestTrue(TEXT("and says why"), Bad->Error.Contains(TEXT("dimension mismatch")));
		TestEqual(TEXT("with no results"), Bad->Results.Num(), 0);
		return true;
	}));
	return true;
}

#endif // WITH_DEV_AUTOMATION_TESTS
