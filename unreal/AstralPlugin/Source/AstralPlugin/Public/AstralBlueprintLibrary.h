// The Astral Blueprint nodes.

#pragma once

#include "CoreMinimal.h"
#include "Kismet/BlueprintFunctionLibrary.h"
#include "AstralTypes.h"
#include "AstralBlueprintLibrary.generated.h"

class UAstralIndex;

/**
 * Blueprint nodes over libastral. A node that can fail returns
 * EAstralOutcome, expanded into Success and Failure exec pins; on failure
 * Error says why, LogAstral logs it, and nothing crashes. Game thread only: the nodes make and read
 * UObjects (NewObject, the index's native pointer, which BeginDestroy and
 * Release Index reset). A query here costs its full latency in the frame;
 * the (Async) nodes run theirs on a worker. C++ on other threads uses
 * FAstralNativeIndex (AstralNativeIndex.h), which is thread-safe.
 */
UCLASS()
class ASTRALPLUGIN_API UAstralBlueprintLibrary : public UBlueprintFunctionLibrary
{
	GENERATED_BODY()

public:
	// ---- Astral|Index --------------------------------------------------

	/**
	 * Makes an empty index for vectors of Dimension floats (1 to 4096), built
	 * as Options says (kind, metric, storage, rerank copy, HNSW parameters,
	 * flat limit; Flat Limit MiB 0 takes the project settings' value).
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", AutoCreateRefTerm = "Options",
		Keywords = "astral new make vector memory embedding"))
	static EAstralOutcome CreateIndex(int32 Dimension, const FAstralIndexOptions& Options, UAstralIndex*& Index, FString& Error);

	/** Stores Vector (Dimension floats) under Id, without tags, owner or payload. Fails if Id is already stored. */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", Keywords = "astral insert store embedding"))
	static EAstralOutcome AddVector(UAstralIndex* Index, int64 Id, const TArray<float>& Vector, FString& Error);

	/**
	 * Stores Vector under Id with what a query can filter on and get back:
	 * Tags and Gameplay Tags (names; a name new to the index takes its lowest
	 * free tag bit, 64 in all), Owner (0 = none) and Payload (text returned
	 * with each hit, up to 4,096 bytes of UTF-8), and what Recall Memories
	 * ranks by: Time (on the game's clock, in the unit it chooses: seconds of
	 * game time, frame ticks) and Importance. Fails if Id is already stored.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", AutoCreateRefTerm = "Tags,GameplayTags,Payload",
		AdvancedDisplay = "GameplayTags", Keywords = "astral insert store remember embedding tag owner payload time importance"))
	static EAstralOutcome AddMemory(UAstralIndex* Index, int64 Id, const TArray<float>& Vector, const TArray<FName>& Tags, const FGameplayTagContainer& GameplayTags,
		int64 Owner, const FString& Payload, FString& Error, int64 Time = 0, float Importance = 0.0f);

	/** Add Memory for many at once (each with its Time and Importance), all or nothing: faster than one node per memory. */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", DisplayName = "Add Memories (Batch)",
		Keywords = "astral insert store remember batch many"))
	static EAstralOutcome AddMemories(UAstralIndex* Index, const TArray<FAstralMemory>& Memories, FString& Error);

	/**
	 * Add Memory that replaces Id if stored: vector, tags, owner, payload,
	 * Time and Importance change in one step, so a query never sees Id
	 * missing or half-changed.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", AutoCreateRefTerm = "Tags,GameplayTags,Payload",
		AdvancedDisplay = "GameplayTags", Keywords = "astral replace update overwrite set memory"))
	static EAstralOutcome UpsertMemory(UAstralIndex* Index, int64 Id, const TArray<float>& Vector, const TArray<FName>& Tags, const FGameplayTagContainer& GameplayTags,
		int64 Owner, const FString& Payload, FString& Error, int64 Time = 0, float Importance = 0.0f);

	/**
	 * Sets the Time of every one of Ids to Time, e.g. when the character
	 * recalls or uses them, so Recall Memories finds them recent again.
	 * All or nothing: if one is not stored, none changes.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue",
		Keywords = "astral time recent use refresh recall recency"))
	static EAstralOutcome TouchMemories(UAstralIndex* Index, const TArray<int64>& Ids, int64 Time, FString& Error);

	/** Sets the Importance of every one of Ids, all or nothing: if one is not stored, none changes. */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue",
		Keywords = "astral importance weight priority salience"))
	static EAstralOutcome SetMemoryImportance(UAstralIndex* Index, const TArray<int64>& Ids, float Importance, FString& Error);

	/** Replaces the tags of stored Id without re-adding its vector (names as in Add Memory). */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", AutoCreateRefTerm = "Tags,GameplayTags",
		AdvancedDisplay = "GameplayTags", Keywords = "astral tag retag label"))
	static EAstralOutcome SetMemoryTags(UAstralIndex* Index, int64 Id, const TArray<FName>& Tags, const FGameplayTagContainer& GameplayTags, FString& Error);

	/**
	 * Names tag bit Bit (0 to 63) Name, saved with the index. Optional: Add
	 * Memory gives a new name the lowest free bit itself; define tags first to
	 * fix their bits (e.g. to match C++ or another tool reading the file).
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", Keywords = "astral tag label name bit"))
	static EAstralOutcome DefineTag(UAstralIndex* Index, FName Name, int32 Bit, FString& Error);

	/** Removes Id. Fails if it is not stored. */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", Keywords = "astral delete forget erase"))
	static EAstralOutcome RemoveMemory(UAstralIndex* Index, int64 Id, FString& Error);

	/** Removes Ids, all or nothing: if one is not stored, none is removed. */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", Keywords = "astral delete forget erase batch many"))
	static EAstralOutcome RemoveMemories(UAstralIndex* Index, const TArray<int64>& Ids, FString& Error);

	/** Removes every memory; the index keeps its options and tag names. */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", Keywords = "astral empty reset forget all"))
	static EAstralOutcome ClearIndex(UAstralIndex* Index, FString& Error);

	/**
	 * Drops the index's memory now instead of at the next garbage collection;
	 * every later node on Index fails. An async node still running on it
	 * finishes first, and the memory goes when it ends.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", Keywords = "astral free destroy dispose unload"))
	static EAstralOutcome ReleaseIndex(UAstralIndex* Index, FString& Error);

	/** How many memories Index holds; 0 (and a LogAstral warning) for None or a released index. */
	UFUNCTION(BlueprintPure, Category = "Astral|Index", meta = (DisplayName = "Memory Count", Keywords = "astral count size length num"))
	static int64 GetMemoryCount(UAstralIndex* Index);

	/** True when Id is stored; false also for None or a released index (with a LogAstral warning). */
	UFUNCTION(BlueprintPure, Category = "Astral|Index", meta = (Keywords = "astral has find exists"))
	static bool ContainsMemory(UAstralIndex* Index, int64 Id);

	/** The vector stored under Id, as the index keeps it: normalized under Cosine, rounded to its storage. */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", DisplayName = "Get Memory Vector",
		Keywords = "astral read embedding"))
	static EAstralOutcome GetMemoryVector(UAstralIndex* Index, int64 Id, TArray<float>& Vector, FString& Error);

	/** The payload stored with Id; empty if it has none. */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", Keywords = "astral read text key payload"))
	static EAstralOutcome GetMemoryPayload(UAstralIndex* Index, int64 Id, FString& Payload, FString& Error);

	/** The Time and Importance stored with Id (0 for a memory added without them, or loaded from a file saved before they existed). */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", DisplayName = "Get Memory Time and Importance",
		Keywords = "astral read time importance recency"))
	static EAstralOutcome GetMemoryTimeAndImportance(UAstralIndex* Index, int64 Id, int64& Time, float& Importance, FString& Error);

	/** What the index holds and how it searches. */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (ExpandEnumAsExecs = "ReturnValue", DisplayName = "Get Index Stats",
		Keywords = "astral memory bytes kernel info"))
	static EAstralOutcome GetStats(UAstralIndex* Index, FAstralStats& Stats, FString& Error);

	/**
	 * An owner key for Object: a 64-bit hash (FNV-1a) of its path name,
	 * never 0 (None gives 0). The same in every session for objects with a
	 * fixed path (actors placed in a level, assets); not for actors spawned
	 * at run time, whose names depend on spawn order, nor across a rename
	 * (and Play In Editor prefixes level paths): give those a saved id instead.
	 */
	UFUNCTION(BlueprintPure, Category = "Astral|Index", meta = (Keywords = "astral owner key hash character npc"))
	static int64 MakeOwnerKey(const UObject* Object);

	// ---- Astral|Query --------------------------------------------------

	/**
	 * The K memories nearest to Vector that pass Filter, best first (fewer if
	 * fewer pass); K is 1 to 1024. Each result carries its payload unless
	 * Include Payloads is off (one library call per hit less).
	 * Budget Microseconds above 0: the search returns by then with the best
	 * it found (a flat index scans a spread sample, HNSW stops expanding),
	 * Complete false and Covered the share it looked at; a budget it keeps
	 * to gives exactly the unbudgeted results. 0: no budget (Complete true,
	 * Covered 1). Payloads are read after the budget.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Query", meta = (ExpandEnumAsExecs = "ReturnValue", AutoCreateRefTerm = "Filter",
		AdvancedDisplay = "bIncludePayloads", Keywords = "astral query search knn similar recall nearest neighbor budget frame"))
	static EAstralOutcome FindNearest(UAstralIndex* Index, const TArray<float>& Vector, int32 K, const FAstralQueryFilter& Filter, TArray<FAstralResult>& Results,
		bool& bComplete, float& Covered, FString& Error, bool bIncludePayloads = true, int32 BudgetMicroseconds = 0);

	/**
	 * Find Nearest for each of Queries in one pass over the memories, Filter
	 * applying to all; no time budget. Results holds every query's hits in turn, best first:
	 * Counts[i] hits for query i, after those of the queries before it.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Query", meta = (ExpandEnumAsExecs = "ReturnValue", AutoCreateRefTerm = "Filter",
		DisplayName = "Find Nearest (Batch)", AdvancedDisplay = "bIncludePayloads", Keywords = "astral query search knn similar batch many"))
	static EAstralOutcome FindNearestBatch(UAstralIndex* Index, const TArray<FAstralVector>& Queries, int32 K, const FAstralQueryFilter& Filter,
		TArray<FAstralResult>& Results, TArray<int32>& Counts, FString& Error, bool bIncludePayloads = true);

	/**
	 * The K memories that pass Filter with the best Weights.Relevance x
	 * similarity to Vector + Weights.Recency x 0.5^((Now - Time) / Half Life)
	 * + Weights.Importance x Importance, best first. Now is the present on the
	 * memories' clock (the game's time, in the unit of their Time). Score
	 * holds that sum; a Time after Now counts as Now. With Recency and
	 * Importance 0 it is Find Nearest, results and scores alike. Fails when
	 * Recency is not 0 and Half Life is not above 0, for a negative weight,
	 * and on an L2 index. A flat index ranks every memory exactly; HNSW ranks
	 * a widened set of similar candidates. Budget Microseconds as Find Nearest.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Query", meta = (ExpandEnumAsExecs = "ReturnValue", AutoCreateRefTerm = "Filter,Weights",
		AdvancedDisplay = "bIncludePayloads", Keywords = "astral query search recall remember memory recent important rank budget"))
	static EAstralOutcome RecallMemories(UAstralIndex* Index, const TArray<float>& Vector, int32 K, const FAstralQueryFilter& Filter,
		const FAstralRecallWeights& Weights, int64 Now, TArray<FAstralResult>& Results, bool& bComplete, float& Covered, FString& Error,
		bool bIncludePayloads = true, int32 BudgetMicroseconds = 0);

	// ---- Astral|Persistence --------------------------------------------

	/**
	 * Writes Index to FilePath, creating its folder if needed. A relative
	 * FilePath is under the project's Saved folder (FPaths::ProjectSavedDir()).
	 * Crash-safe: the new file replaces the old one only once whole, so a crash
	 * leaves one or the other. Adds and removes on other threads wait for it.
	 * Tags, owners, payloads, times, importances and tag names are saved too.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Persistence", meta = (ExpandEnumAsExecs = "ReturnValue", Keywords = "astral write store disk"))
	static EAstralOutcome SaveIndexToFile(UAstralIndex* Index, const FString& FilePath, FString& Error);

	/**
	 * Index as bytes, for a byte array property of a Save Game object; Load
	 * Index From Bytes reads them back. Empty on failure. Indexes over 2 GiB
	 * do not fit an array: save those to a file.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Persistence", meta = (ExpandEnumAsExecs = "ReturnValue", Keywords = "astral serialize save game"))
	static EAstralOutcome SaveIndexToBytes(UAstralIndex* Index, TArray<uint8>& Bytes, FString& Error);

	/**
	 * A new index from a file Save Index To File wrote. A relative FilePath is
	 * under the project's Saved folder (FPaths::ProjectSavedDir()). Win64, Linux
	 * and Mac map the file read-only, not copy it, so even a large index is ready
	 * in milliseconds; do not change it in place while the index lives. Saving
	 * over it is fine: on Win64, which cannot replace a mapped file, the save
	 * first copies every index mapping it into memory.
	 * Damaged, truncated or foreign files fail (corrupt data, version mismatch).
	 * Verify In Background: return before the bulk of the file is checked; call
	 * Verify Index before trusting it.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Persistence", meta = (ExpandEnumAsExecs = "ReturnValue", AdvancedDisplay = "bVerifyInBackground",
		Keywords = "astral read open disk"))
	static EAstralOutcome LoadIndexFromFile(const FString& FilePath, UAstralIndex*& Index, FString& Error, bool bVerifyInBackground = false);

	/**
	 * A new index from bytes Save Index To Bytes made (a save game, a packed
	 * asset's byte array); they are copied, not kept. Damaged or truncated bytes
	 * fail with corrupt data.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Persistence", meta = (ExpandEnumAsExecs = "ReturnValue", Keywords = "astral deserialize save game"))
	static EAstralOutcome LoadIndexFromBytes(const TArray<uint8>& Bytes, UAstralIndex*& Index, FString& Error);

	/**
	 * Waits for the background check of an index loaded with Verify In
	 * Background; Success when the file is whole. On Failure (corrupt data),
	 * every other node fails on that index too: drop it and load again. Any
	 * other index was checked whole when made: Success at once.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Persistence", meta = (ExpandEnumAsExecs = "ReturnValue", Keywords = "astral check checksum"))
	static EAstralOutcome VerifyIndex(UAstralIndex* Index, FString& Error);

	// ---- Astral --------------------------------------------------------

	/** True when libastral is loaded and its runtime started; if false, LogAstral says why. */
	UFUNCTION(BlueprintPure, Category = "Astral")
	static bool IsAstralAvailable();
};
