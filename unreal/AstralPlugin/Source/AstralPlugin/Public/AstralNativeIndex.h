// FAstralNativeIndex: one libastral index behind UE types, usable from any
// thread and from other modules.

#pragma once

#include "CoreMinimal.h"
#include "HAL/CriticalSection.h"
#include "Templates/Function.h"
#include "Templates/SharedPointer.h"
#include "AstralTypes.h"

namespace astral
{
	class Index;
}

/** Called on the game thread with a query's outcome. */
using FAstralQueryCallback = TUniqueFunction<void(bool bSuccess, TArray<FAstralResult>&& Results, FString&& Error)>;

/**
 * What Recall Memories and the budget pins add to a plain query. The
 * defaults are Find Nearest: ranked by similarity, no time budget.
 */
struct FAstralSearchSettings
{
	/** Rank by Weights (similarity, recency, importance) at time Now; off: by similarity alone. */
	bool bRecall = false;
	FAstralRecallWeights Weights;
	/** The present on the memories' clock: recency is 1 for a memory of Time Now. */
	int64 Now = 0;
	/** Microseconds the search may take before it returns its best so far; 0: no budget. */
	int64 BudgetMicroseconds = 0;
};

/** How much of the index a query looked at: all of it unless a budget ran out. */
struct FAstralSearchCoverage
{
	/** True when the search finished: the results are those without a budget. */
	bool bComplete = true;
	/** The share of records (flat) or graph expansions (HNSW) it covered, 0 to 1; 1 when complete. */
	float Covered = 1.0f;
};

/**
 * Owns one libastral index. Thread-safe: every method may run on any thread,
 * several at once, on one index (libastral serializes writers; queries run
 * beside them and see each write whole or not at all). Share it with
 * TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe>: the UAstralIndex that
 * made it holds one reference and every running async node another, so it
 * lives until the last of them lets go. This is the class for C++ in other
 * modules and on worker threads; the UObject nodes are game-thread only.
 * Failures return false with OutError set and logged to LogAstral, never
 * crash. Every call needs the plugin's module started (IsAstralAvailable).
 *
 * Tags are names: the index keeps a table of up to 64 tag names, saved with
 * it, each naming one bit of a record's tag mask. Adding a record with a
 * name the table lacks gives that name the lowest free bit (Define Tag picks
 * one); a query never adds names. Gameplay Tags count by their full name.
 */
class ASTRALPLUGIN_API FAstralNativeIndex
{
public:
	/** Only Create and the Load functions make these: a live table is needed to destroy one. */
	explicit FAstralNativeIndex(astral::Index&& InIndex);
	~FAstralNativeIndex();
	FAstralNativeIndex(const FAstralNativeIndex&) = delete;
	FAstralNativeIndex& operator=(const FAstralNativeIndex&) = delete;

	/**
	 * A new index for vectors of Dimension floats, or null with OutError set.
	 * Options.FlatLimitMiB 0 is the library's default here (the Blueprint node
	 * reads the project settings first).
	 */
	static TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Create(int32 Dimension, const FAstralIndexOptions& Options, FString& OutError);

	/**
	 * The index saved at Path (a full path), or null with OutError set. The
	 * file is mapped, not read: it must not be changed in place while loaded.
	 * bVerifyInBackground returns before the bulk's checksums are checked;
	 * Verify waits for that check.
	 */
	static TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> LoadFromFile(const FString& Path, bool bVerifyInBackground, FString& OutError);

	/** The index saved in Bytes (copied: Bytes may go once this returns), or null with OutError set. */
	static TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> LoadFromBytes(const TArray<uint8>& Bytes, FString& OutError);

	int32 GetDimension() const;

	/** Ids.Num() plain vectors (no tags, owner or payload), row after row in Vectors. All or nothing. */
	bool Add(const TArray<uint64_t>& Ids, const TArray<float>& Vectors, FString& OutError);
	/** One plain vector. */
	bool Add(uint64_t Id, const TArray<float>& Vector, FString& OutError);

	/**
	 * Stores Count memories with their tags, owners and payloads, all or
	 * nothing. bReplace: a stored id is replaced (vector and attributes) in
	 * the same step, never seen missing by a query; otherwise a stored id
	 * fails the whole call. What names the caller in messages.
	 */
	bool AddMemories(const FAstralMemory* Memories, int32 Count, bool bReplace, const TCHAR* What, FString& OutError);

	/** Sets the Time of every one of Ids (e.g. when the character recalls them), all or nothing. */
	bool Touch(const TArray<uint64_t>& Ids, int64 Time, FString& OutError);

	/** Sets the Importance of every one of Ids, all or nothing. */
	bool SetImportance(const TArray<uint64_t>& Ids, float Importance, FString& OutError);

	/** The Time and Importance stored with Id. */
	bool GetTimeAndImportance(uint64_t Id, int64& OutTime, float& OutImportance, FString& OutError) const;

	/**
	 * The per-unit recency decay of a half-life: 0.5^(1 / HalfLife), so that
	 * decay^(Now - Time) halves every HalfLife. The one place the plugin
	 * converts; HalfLife must be above 0.
	 */
	static double DecayPerUnit(double HalfLife);

	/** Replaces one stored record's tags; its vector and the rest stay. */
	bool SetTags(uint64_t Id, const TArray<FName>& Tags, const FGameplayTagContainer& GameplayTags, FString& OutError);

	/** Removes Ids, all or nothing: if one is not stored, none is removed. */
	bool Remove(const TArray<uint64_t>& Ids, FString& OutError);
	bool Remove(uint64_t Id, FString& OutError);

	/** Removes every record; the tag names stay defined. */
	bool Clear(FString& OutError);

	bool Contains(uint64_t Id, bool& bOutContains, FString& OutError) const;
	bool Count(int64& OutCount, FString& OutError) const;

	/** The stored vector of Id as the index keeps it (normalized under Cosine, rounded to its storage). */
	bool GetVector(uint64_t Id, TArray<float>& OutVector, FString& OutError) const;

	/** The payload stored with Id; empty if it has none. */
	bool GetPayload(uint64_t Id, FString& OutPayload, FString& OutError) const;

	/** Names tag bit Bit (0 to 63) Name, saved with the index. */
	bool DefineTag(const FName& Name, int32 Bit, FString& OutError);

	/** The bit Name names, or -1 with true when the index has no such tag. */
	bool FindTag(const FName& Name, int32& OutBit, FString& OutError) const;

	/**
	 * The K stored records nearest to Vector that pass Filter, best first
	 * (fewer if fewer pass). bWithPayloads fills each result's Payload, one
	 * more library call per hit; a record removed between the search and that
	 * call keeps an empty payload.
	 */
	bool FindNearest(const TArray<float>& Vector, int32 K, const FAstralQueryFilter& Filter, bool bWithPayloads,
		TArray<FAstralResult>& OutResults, FString& OutError) const;

	/**
	 * FindNearest ranked and timed as Settings says: by Settings.Weights when
	 * bRecall (failing as "Recall Memories"), within BudgetMicroseconds when
	 * it is above 0. OutCoverage tells whether the budget cut the search short.
	 */
	bool Search(const TArray<float>& Vector, int32 K, const FAstralQueryFilter& Filter, const FAstralSearchSettings& Settings, bool bWithPayloads,
		TArray<FAstralResult>& OutResults, FAstralSearchCoverage& OutCoverage, FString& OutError) const;

	/** FindNearest for each of Queries in one pass: OutCounts[i] hits for query i, in turn. */
	bool FindNearestBatch(const TArray<FAstralVector>& Queries, int32 K, const FAstralQueryFilter& Filter, bool bWithPayloads,
		TArray<FAstralResult>& OutResults, TArray<int32>& OutCounts, FString& OutError) const;

	bool GetStats(FAstralStats& OutStats, FString& OutError) const;

	/** Writes the index to Path (a full path), replacing the file only once the new one is whole. */
	bool SaveToFile(const FString& Path, FString& OutError) const;

	/** The index file's bytes, in OutBytes (emptied on failure). */
	bool SaveToBytes(TArray<uint8>& OutBytes, FString& OutError) const;

	/** Waits for the background check of a file loaded with bVerifyInBackground; true at once for any other index. */
	bool Verify(FString& OutError) const;

	/**
	 * Runs FindNearest on a UE::Tasks worker, then OnGameThread on the game
	 * thread. The task holds Self, so the index outlives its UAstralIndex if need be.
	 */
	static void FindNearestAsync(const TSharedRef<FAstralNativeIndex, ESPMode::ThreadSafe>& Self, TArray<float> Vector, int32 K,
		FAstralQueryFilter Filter, bool bWithPayloads, FAstralQueryCallback OnGameThread);

	/**
	 * The astral.hpp index, for code in this module that measures through it
	 * (the Automation tests); it needs AstralApi.h, which is private.
	 */
	astral::Index& GetIndex() { return *Index; }
	const astral::Index& GetIndex() const { return *Index; }

private:
	/** The mask of Names and GameplayTags, giving names the table lacks the lowest free bits. */
	bool DefineTagMask(const TArray<FName>& Names, const FGameplayTagContainer& GameplayTags, const TCHAR* What, uint64_t& OutMask, FString& OutError);
	/** The mask of the names the table has; OutUnknown counts the others. */
	bool LookupTagMask(const TArray<FName>& Names, const FGameplayTagContainer& GameplayTags, const TCHAR* What, uint64_t& OutMask,
		int32& OutUnknown, FString& OutError) const;
	/** The bit of Name, or -1 when the table lacks it. */
	bool LookupTag(const FString& Name, const TCHAR* What, int32& OutBit, FString& OutError) const;
	bool FillPayloads(TArray<FAstralResult>& Results, const TCHAR* What, FString& OutError) const;

	/** Owned; astral::Index is declared in AstralApi.h, private to this module. */
	astral::Index* Index;
	/** Serializes giving names free tag bits, so two adds never take one bit for two names. */
	mutable FCriticalSection TagLock;
};
