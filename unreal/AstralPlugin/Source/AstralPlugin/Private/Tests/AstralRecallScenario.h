// Recall Memories, Touch Memories, Set Memory Importance, Get Memory Time and
// Importance and the budget pins end to end, written once for two runners:
// the Automation test Astral.Functional.Recall (in the engine) and
// unreal_nodes (unreal/stubcheck/runtime, on the stand-in engine with the
// real libastral).

#pragma once

#include "CoreMinimal.h"
#include "AstralBlueprintLibrary.h"
#include "AstralIndex.h"
#include "AstralNativeIndex.h"
#include "HAL/PlatformTime.h"
#include "Tests/AstralScopedScenario.h"

namespace UE::Astral::Tests::Recall
{
	using Scoped::FExpect;
	using Scoped::Ids;
	using Scoped::Vec;

	/** The failures the scenario provokes, each logged once as a LogAstral warning, in order. */
	inline TArray<FString> ExpectedErrors()
	{
		return {
			TEXT("Astral Recall Memories: Half Life is 0; it must be above 0 when the Recency weight is not 0"),
			TEXT("Astral Recall Memories: Half Life is -5; it must be above 0 when the Recency weight is not 0"),
			TEXT("Astral Find Nearest: Budget Microseconds is -1, below 0"),
			TEXT("Astral Recall Memories: invalid argument: astral_index_query_ex: astral: invalid argument: rank importance weight -1: want a finite value, 0 or more"),
			TEXT("Astral Recall Memories: invalid argument: astral_index_query_ex: astral: invalid argument: ranking needs a similarity that grows with closeness: cosine or dot, not l2"),
			TEXT("Astral Touch Memories: id not found: astral_index_touch: astral: id not found: id 99"),
			TEXT("Astral Set Memory Importance: id not found: astral_index_set_importance: astral: id not found: id 99"),
			TEXT("Astral Get Memory Time and Importance: id not found: astral_index_get_memory: astral: id not found: id 99"),
		};
	}

	/** Recall Memories for (1,0,0,0), K 10, at Now 1000 under Weights: the ids, best first, as "1,2,3". */
	inline FString Recalled(UAstralIndex* Index, const FAstralRecallWeights& Weights, TArray<FAstralResult>* OutResults = nullptr)
	{
		TArray<FAstralResult> Results;
		bool bComplete = false;
		float Covered = 0.0f;
		FString Error;
		if (UAstralBlueprintLibrary::RecallMemories(Index, Vec(1.0f, 0.0f, 0.0f, 0.0f), 10, FAstralQueryFilter(), Weights, 1000, Results, bComplete, Covered, Error)
			!= EAstralOutcome::Success)
		{
			return TEXT("failed: ") + Error;
		}
		if (!bComplete || Covered != 1.0f)
		{
			return TEXT("incomplete without a budget");
		}
		if (OutResults != nullptr)
		{
			*OutResults = Results;
		}
		return Ids(Results);
	}

	inline FAstralRecallWeights Weights(float Relevance, float Recency, float Importance, double HalfLife = 100.0)
	{
		FAstralRecallWeights Out;
		Out.Relevance = Relevance;
		Out.Recency = Recency;
		Out.Importance = Importance;
		Out.HalfLife = HalfLife;
		return Out;
	}

	/** Same ids and score bits in the same order. */
	inline bool SameResults(const TArray<FAstralResult>& A, const TArray<FAstralResult>& B)
	{
		if (A.Num() != B.Num())
		{
			return false;
		}
		for (int32 Hit = 0; Hit < A.Num(); ++Hit)
		{
			if (A[Hit].Id != B[Hit].Id || FMemory::Memcmp(&A[Hit].Score, &B[Hit].Score, sizeof(float)) != 0)
			{
				return false;
			}
		}
		return true;
	}

	inline bool Near(float A, double B)
	{
		return FMath::Abs(static_cast<double>(A) - B) < 1e-5;
	}

	/** Get Memory Time and Importance of Id as "time, importance" (e.g. "1000, 0.5"), or "failed: <error>". */
	inline FString TimeAndImportance(UAstralIndex* Index, int64 Id)
	{
		int64 Time = 0;
		float Importance = 0.0f;
		FString Error;
		if (UAstralBlueprintLibrary::GetMemoryTimeAndImportance(Index, Id, Time, Importance, Error) != EAstralOutcome::Success)
		{
			return TEXT("failed: ") + Error;
		}
		return FString::Printf(TEXT("%lld, %g"), Time, Importance);
	}

	/** Runs the ranking part of the scenario; SavePath is a full path to write. */
	inline void RunRanking(const FExpect& Expect, const FString& SavePath)
	{
		FString Error;
		UAstralIndex* Index = nullptr;
		FAstralIndexOptions Options;
		Options.Kind = EAstralIndexKind::Flat;
		Options.Storage = EAstralStorage::F32;
		if (UAstralBlueprintLibrary::CreateIndex(4, Options, Index, Error) != EAstralOutcome::Success)
		{
			Expect(false, TEXT("Create Index: ") + Error);
			return;
		}
		const TArray<FName> NoNames;
		const FGameplayTagContainer NoTags;
		// Against (1,0,0,0): 1 is the most similar but old, 2 less similar but
		// recent, 3 less similar still but important, 4 unlike it.
		Expect(UAstralBlueprintLibrary::AddMemory(Index, 1, Vec(1.0f, 0.0f, 0.0f, 0.0f), NoNames, NoTags, 0, FString(), Error, 0, 0.0f) == EAstralOutcome::Success,
			TEXT("Add Memory 1 (similar, Time 0): ") + Error);
		Expect(UAstralBlueprintLibrary::AddMemory(Index, 2, Vec(0.8f, 0.6f, 0.0f, 0.0f), NoNames, NoTags, 0, FString(), Error, 1000, 0.0f) == EAstralOutcome::Success,
			TEXT("Add Memory 2 (less similar, Time 1000): ") + Error);
		FAstralMemory Three;
		Three.Id = 3;
		Three.Vector = Vec(0.6f, 0.8f, 0.0f, 0.0f);
		Three.Importance = 1.0f;
		FAstralMemory Four;
		Four.Id = 4;
		Four.Vector = Vec(0.0f, 1.0f, 0.0f, 0.0f);
		Expect(UAstralBlueprintLibrary::AddMemories(Index, { Three, Four }, Error) == EAstralOutcome::Success,
			TEXT("Add Memories 3 (Importance 1) and 4: ") + Error);

		FString Got = TimeAndImportance(Index, 2);
		Expect(Got == TEXT("1000, 0"), TEXT("Get Memory Time and Importance 2: 1000, 0 (") + Got + TEXT(")"));
		Got = TimeAndImportance(Index, 3);
		Expect(Got == TEXT("0, 1"), TEXT("Get Memory Time and Importance 3: 0, 1 (") + Got + TEXT(")"));

		// Relevance alone is Find Nearest: the same ids and score bits.
		TArray<FAstralResult> Plain;
		bool bComplete = false;
		float Covered = 0.0f;
		Expect(UAstralBlueprintLibrary::FindNearest(Index, Vec(1.0f, 0.0f, 0.0f, 0.0f), 10, FAstralQueryFilter(), Plain, bComplete, Covered, Error) == EAstralOutcome::Success
			&& bComplete && Covered == 1.0f, TEXT("Find Nearest without a budget: Complete, Covered 1"));
		TArray<FAstralResult> Hits;
		Got = Recalled(Index, Weights(1.0f, 0.0f, 0.0f), &Hits);
		Expect(Got == TEXT("1,2,3,4") && SameResults(Hits, Plain), TEXT("relevance alone: Find Nearest's ids and scores, bit for bit (") + Got + TEXT(")"));
		Got = Recalled(Index, Weights(1.0f, 0.0f, 0.0f, 0.0), &Hits);
		Expect(Got == TEXT("1,2,3,4") && SameResults(Hits, Plain), TEXT("relevance alone ignores Half Life 0 (") + Got + TEXT(")"));

		// Recency: the recent, less similar 2 outranks the old, similar 1.
		Got = Recalled(Index, Weights(1.0f, 1.0f, 0.0f), &Hits);
		Expect(Got == TEXT("2,1,3,4"), TEXT("relevance + recency: 2 (recent) before 1 (similar) (") + Got + TEXT(")"));
		if (Hits.Num() == 4)
		{
			// 1 is 1000 old: ten half-lives of 100, recency 0.5^10.
			Expect(Near(Hits[0].Score, 0.8 + 1.0) && Near(Hits[1].Score, 1.0 + 0.0009765625),
				FString::Printf(TEXT("scores: 2 = 0.8 + 1 (%.7f), 1 = 1 + 0.5^10 (%.7f)"), Hits[0].Score, Hits[1].Score));
		}
		// Importance: the important 3 outranks both.
		Got = Recalled(Index, Weights(1.0f, 0.0f, 1.0f));
		Expect(Got == TEXT("3,1,2,4"), TEXT("relevance + importance: 3 (important) first (") + Got + TEXT(")"));
		// The defaults weigh all three alike with a Half Life of 3600: 1000 old is recency 0.825.
		Got = Recalled(Index, FAstralRecallWeights());
		Expect(Got == TEXT("3,1,2,4"), TEXT("the default weights: 3 (important), 1 (similar), 2 (recent) (") + Got + TEXT(")"));

		// Touch Memories makes 1 recent; Set Memory Importance makes 4 matter.
		Expect(UAstralBlueprintLibrary::TouchMemories(Index, { 1 }, 1000, Error) == EAstralOutcome::Success, TEXT("Touch Memories 1 at 1000: ") + Error);
		Got = Recalled(Index, Weights(1.0f, 1.0f, 0.0f));
		Expect(Got == TEXT("1,2,3,4"), TEXT("touched, 1 is recent again and first (") + Got + TEXT(")"));
		Expect(UAstralBlueprintLibrary::SetMemoryImportance(Index, { 4 }, 2.0f, Error) == EAstralOutcome::Success, TEXT("Set Memory Importance 4 = 2: ") + Error);
		Got = Recalled(Index, Weights(1.0f, 0.0f, 1.0f));
		Expect(Got == TEXT("4,3,1,2"), TEXT("4 now matters most (") + Got + TEXT(")"));
		Got = TimeAndImportance(Index, 1);
		Expect(Got == TEXT("1000, 0"), TEXT("Get Memory Time and Importance 1: 1000, 0 after Touch Memories (") + Got + TEXT(")"));

		// Upsert replaces Time and Importance with the rest.
		Expect(UAstralBlueprintLibrary::UpsertMemory(Index, 2, Vec(0.8f, 0.6f, 0.0f, 0.0f), NoNames, NoTags, 0, FString(), Error, 500, 0.5f) == EAstralOutcome::Success,
			TEXT("Upsert Memory 2 with Time 500, Importance 0.5: ") + Error);
		Got = TimeAndImportance(Index, 2);
		Expect(Got == TEXT("500, 0.5"), TEXT("Upsert: 2 has Time 500, Importance 0.5 (") + Got + TEXT(")"));
		Got = TimeAndImportance(Index, 4);
		Expect(Got == TEXT("0, 2"), TEXT("Set Memory Importance: 4 has Importance 2 (") + Got + TEXT(")"));

		// Failures, each with its exact message (ExpectedErrors, in order).
		const TArray<FString> Messages = ExpectedErrors();
		auto ExpectFailure = [&Expect, &Error](EAstralOutcome Outcome, const FString& Want, const TCHAR* What)
		{
			Expect(Outcome == EAstralOutcome::Failure && Error == Want, FString::Printf(TEXT("%s fails: %s"), What, *Error));
		};
		TArray<FAstralResult> None;
		ExpectFailure(UAstralBlueprintLibrary::RecallMemories(Index, Vec(1.0f, 0.0f, 0.0f, 0.0f), 10, FAstralQueryFilter(), Weights(1.0f, 1.0f, 0.0f, 0.0), 1000,
			None, bComplete, Covered, Error), Messages[0], TEXT("recency with Half Life 0"));
		ExpectFailure(UAstralBlueprintLibrary::RecallMemories(Index, Vec(1.0f, 0.0f, 0.0f, 0.0f), 10, FAstralQueryFilter(), Weights(0.0f, 0.5f, 0.0f, -5.0), 1000,
			None, bComplete, Covered, Error), Messages[1], TEXT("recency with Half Life -5"));
		ExpectFailure(UAstralBlueprintLibrary::FindNearest(Index, Vec(1.0f, 0.0f, 0.0f, 0.0f), 10, FAstralQueryFilter(), None, bComplete, Covered, Error, true, -1),
			Messages[2], TEXT("a negative budget"));
		ExpectFailure(UAstralBlueprintLibrary::RecallMemories(Index, Vec(1.0f, 0.0f, 0.0f, 0.0f), 10, FAstralQueryFilter(), Weights(1.0f, 0.0f, -1.0f), 1000,
			None, bComplete, Covered, Error), Messages[3], TEXT("a negative weight"));
		UAstralIndex* L2 = nullptr;
		FAstralIndexOptions L2Options = Options;
		L2Options.Metric = EAstralMetric::L2;
		Expect(UAstralBlueprintLibrary::CreateIndex(4, L2Options, L2, Error) == EAstralOutcome::Success
			&& UAstralBlueprintLibrary::AddMemory(L2, 1, Vec(1.0f, 0.0f, 0.0f, 0.0f), NoNames, NoTags, 0, FString(), Error, 0, 1.0f) == EAstralOutcome::Success,
			TEXT("an L2 index with a memory"));
		ExpectFailure(UAstralBlueprintLibrary::RecallMemories(L2, Vec(1.0f, 0.0f, 0.0f, 0.0f), 10, FAstralQueryFilter(), Weights(1.0f, 0.0f, 1.0f), 1000,
			None, bComplete, Covered, Error), Messages[4], TEXT("ranking an L2 index"));
		ExpectFailure(UAstralBlueprintLibrary::TouchMemories(Index, { 1, 99 }, 5, Error), Messages[5], TEXT("Touch Memories with an id not stored"));
		ExpectFailure(UAstralBlueprintLibrary::SetMemoryImportance(Index, { 99, 1 }, 5.0f, Error), Messages[6], TEXT("Set Memory Importance with an id not stored"));
		int64 Time = -1;
		float Importance = -1.0f;
		ExpectFailure(UAstralBlueprintLibrary::GetMemoryTimeAndImportance(Index, 99, Time, Importance, Error), Messages[7],
			TEXT("Get Memory Time and Importance of an id not stored"));
		Expect(Time == 0 && Importance == 0.0f, TEXT("a failed Get Memory Time and Importance gives 0 and 0"));
		Got = TimeAndImportance(Index, 1);
		Expect(Got == TEXT("1000, 0"), TEXT("all or nothing: 1 kept Time 1000 and Importance 0 (") + Got + TEXT(")"));

		// Saved and loaded: times and importances come back.
		Expect(UAstralBlueprintLibrary::SaveIndexToFile(Index, SavePath, Error) == EAstralOutcome::Success, TEXT("Save Index To File: ") + Error);
		UAstralIndex* Loaded = nullptr;
		if (UAstralBlueprintLibrary::LoadIndexFromFile(SavePath, Loaded, Error) != EAstralOutcome::Success)
		{
			Expect(false, TEXT("Load Index From File: ") + Error);
			return;
		}
		for (const int64 Id : { 1, 2, 3, 4 })
		{
			const FString Saved = TimeAndImportance(Index, Id);
			Got = TimeAndImportance(Loaded, Id);
			Expect(Got == Saved, FString::Printf(TEXT("loaded: %lld has Time and Importance %s as saved (%s)"), Id, *Saved, *Got));
		}
		TArray<FAstralResult> Before;
		TArray<FAstralResult> After;
		Recalled(Index, FAstralRecallWeights(), &Before);
		Recalled(Loaded, FAstralRecallWeights(), &After);
		Expect(Before.Num() == 4 && SameResults(Before, After), TEXT("loaded: Recall Memories ranks as before, bit for bit (") + Ids(After) + TEXT(")"));
	}

	/** The fastest of Runs calls of Query, in microseconds. */
	template <typename FQuery>
	double FastestMicroseconds(int32 Runs, FQuery&& Query)
	{
		double Best = 0.0;
		for (int32 Run = 0; Run < Runs; ++Run)
		{
			const double Start = FPlatformTime::Seconds();
			Query();
			const double Took = (FPlatformTime::Seconds() - Start) * 1e6;
			Best = Run == 0 ? Took : FMath::Min(Best, Took);
		}
		return Best;
	}

	/** Hits with ids below Count, best first, at most K: what a cut-short query may return. */
	inline bool ValidHits(const TArray<FAstralResult>& Hits, int32 K, int64 Count)
	{
		bool bValid = Hits.Num() <= K;
		for (int32 Hit = 0; Hit < Hits.Num(); ++Hit)
		{
			bValid &= Hits[Hit].Id >= 0 && Hits[Hit].Id < Count && (Hit == 0 || Hits[Hit - 1].Score >= Hits[Hit].Score);
		}
		return bValid;
	}

	/**
	 * The budget pins on 100,000 memories, more than 1 microsecond can
	 * cover: a generous budget gives the unbudgeted results, Complete; 1
	 * microsecond returns sooner than the unbudgeted query, with valid
	 * results, not Complete.
	 */
	inline void RunBudget(const FExpect& Expect)
	{
		constexpr int32 Dimension = 64;
		constexpr int32 Count = 100000;
		constexpr int32 K = 10;
		constexpr int32 Generous = 10000000;
		FString Error;
		UAstralIndex* Index = nullptr;
		FAstralIndexOptions Options;
		Options.Kind = EAstralIndexKind::Flat;
		if (UAstralBlueprintLibrary::CreateIndex(Dimension, Options, Index, Error) != EAstralOutcome::Success)
		{
			Expect(false, TEXT("Create Index: ") + Error);
			return;
		}
		// A fixed sequence (64-bit LCG), the same on every platform.
		uint64 State = 20;
		auto Next = [&State]()
		{
			State = State * 6364136223846793005ull + 1442695040888963407ull;
			return static_cast<float>(static_cast<int32>(State >> 40) - (1 << 23)) / static_cast<float>(1 << 23);
		};
		TArray<FAstralMemory> Memories;
		Memories.SetNum(Count);
		for (int32 Row = 0; Row < Count; ++Row)
		{
			Memories[Row].Id = Row;
			Memories[Row].Vector.SetNumUninitialized(Dimension);
			for (float& Value : Memories[Row].Vector)
			{
				Value = Next();
			}
			Memories[Row].Time = Row;
			Memories[Row].Importance = static_cast<float>(Row % 7) / 7.0f;
		}
		if (UAstralBlueprintLibrary::AddMemories(Index, Memories, Error) != EAstralOutcome::Success)
		{
			Expect(false, TEXT("Add Memories (100,000): ") + Error);
			return;
		}
		Memories.Empty();
		TArray<float> Query;
		Query.SetNumUninitialized(Dimension);
		for (float& Value : Query)
		{
			Value = Next();
		}
		const FAstralRecallWeights Ranking = Weights(1.0f, 1.0f, 1.0f, 10000.0);

		// Each node: no budget, a generous one, 1 microsecond.
		for (const bool bRecall : { false, true })
		{
			const TCHAR* Node = bRecall ? TEXT("Recall Memories") : TEXT("Find Nearest");
			TArray<FAstralResult> Hits;
			bool bComplete = false;
			float Covered = 0.0f;
			auto Search = [&](int32 BudgetMicroseconds)
			{
				return bRecall
					? UAstralBlueprintLibrary::RecallMemories(Index, Query, K, FAstralQueryFilter(), Ranking, Count, Hits, bComplete, Covered, Error, false, BudgetMicroseconds)
					: UAstralBlueprintLibrary::FindNearest(Index, Query, K, FAstralQueryFilter(), Hits, bComplete, Covered, Error, false, BudgetMicroseconds);
			};
			const bool bPlain = Search(0) == EAstralOutcome::Success && Hits.Num() == K && bComplete && Covered == 1.0f;
			const TArray<FAstralResult> Plain = Hits;
			Expect(bPlain, FString::Printf(TEXT("%s, no budget: %d hits, Complete, Covered 1 %s"), Node, Plain.Num(), *Error));
			// Each call before its message: the message reads what the call wrote.
			const bool bGenerous = Search(Generous) == EAstralOutcome::Success;
			Expect(bGenerous && bComplete && Covered == 1.0f && SameResults(Hits, Plain),
				FString::Printf(TEXT("%s, 10 s budget: the unbudgeted results bit for bit, Complete (%d), Covered %.6f"), Node, bComplete ? 1 : 0, Covered));
			const bool bShort = Search(1) == EAstralOutcome::Success;
			Expect(bShort && !bComplete && Covered >= 0.0f && Covered < 1.0f && ValidHits(Hits, K, Count),
				FString::Printf(TEXT("%s, 1 us budget: %d valid hits, best first, not Complete (%d), Covered %.6f below 1 %s"),
					Node, Hits.Num(), bComplete ? 1 : 0, Covered, *Error));
			const double Unbudgeted = FastestMicroseconds(5, [&Search]() { Search(0); });
			const double Budgeted = FastestMicroseconds(5, [&Search]() { Search(1); });
			Expect(Budgeted < Unbudgeted, FString::Printf(TEXT("%s, 1 us budget returns sooner than no budget (fastest of 5: %.1f us against %.1f us)"),
				Node, Budgeted, Unbudgeted));
			// Half the unbudgeted time: whatever it covers, Complete means the exact results.
			const int32 Half = FMath::Max(1, static_cast<int32>(Unbudgeted / 2.0));
			const bool bHalf = Search(Half) == EAstralOutcome::Success;
			Expect(bHalf && ValidHits(Hits, K, Count) && (bComplete ? Covered == 1.0f && SameResults(Hits, Plain) : Covered < 1.0f),
				FString::Printf(TEXT("%s, %d us budget: %d valid hits, Complete %d, Covered %.6f (Complete only with the unbudgeted results)"),
					Node, Half, Hits.Num(), bComplete ? 1 : 0, Covered));
			if (bRecall)
			{
				TArray<FAstralResult> Nearest;
				UAstralBlueprintLibrary::FindNearest(Index, Query, K, FAstralQueryFilter(), Nearest, bComplete, Covered, Error, false);
				Expect(!SameResults(Plain, Nearest), TEXT("Recall Memories ranks otherwise than Find Nearest here (recent, important memories rise)"));
			}
		}
	}

	/** The whole scenario. */
	inline void Run(const FExpect& Expect, const FString& SavePath)
	{
		RunRanking(Expect, SavePath);
		RunBudget(Expect);
	}
}
