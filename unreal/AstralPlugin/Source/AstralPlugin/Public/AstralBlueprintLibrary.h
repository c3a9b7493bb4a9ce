// The Astral Blueprint nodes.

#pragma once

#include "CoreMinimal.h"
#include "Kismet/BlueprintFunctionLibrary.h"
#include "AstralTypes.h"
#include "AstralBlueprintLibrary.generated.h"

class UAstralIndex;

/**
 * Blueprint nodes over libastral. Bad input never crashes: a node returns
 * false, says why in Error and logs it to LogAstral. The calls are
 * thread-safe; from Blueprint they run on the game thread, so a query there
 * costs its full latency in the frame (Query (Async) runs it on a worker).
 */
UCLASS()
class ASTRALPLUGIN_API UAstralBlueprintLibrary : public UBlueprintFunctionLibrary
{
	GENERATED_BODY()

public:
	/**
	 * Makes an empty index for vectors of Dimension floats (1 to 4096).
	 * Storage: how each component is kept (Int8 for one byte at near-F16
	 * recall, E5M2 the default, F16/F32 when memory allows). Rerank: a second
	 * F16 or F32 copy each query rescores its K x Rerank Factor best candidates
	 * against (Rerank Factor 1 to 64, 0 = 4; ignored when Rerank is None).
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral", meta = (ReturnDisplayName = "Success", AdvancedDisplay = "Storage,Rerank,RerankFactor"))
	static bool CreateIndex(int32 Dimension, EAstralMetric Metric, EAstralIndexKind Kind, UAstralIndex*& Index, FString& Error,
		EAstralStorage Storage = EAstralStorage::E5M2, EAstralRerank Rerank = EAstralRerank::None, int32 RerankFactor = 4);

	/** Stores Vector (Dimension floats) under Id. Fails if Id is already stored. */
	UFUNCTION(BlueprintCallable, Category = "Astral", meta = (ReturnDisplayName = "Success"))
	static bool Add(UAstralIndex* Index, int64 Id, const TArray<float>& Vector, FString& Error);

	/** Stores Ids.Num() vectors; Vectors holds them row after row. All or nothing. */
	UFUNCTION(BlueprintCallable, Category = "Astral", meta = (ReturnDisplayName = "Success"))
	static bool AddBatch(UAstralIndex* Index, const TArray<int64>& Ids, const TArray<float>& Vectors, FString& Error);

	/** Removes Ids. All or nothing: if one is not stored, none is removed. */
	UFUNCTION(BlueprintCallable, Category = "Astral", meta = (ReturnDisplayName = "Success"))
	static bool Remove(UAstralIndex* Index, const TArray<int64>& Ids, FString& Error);

	/** The K stored vectors nearest to Vector, best first (fewer if fewer are stored). K: 1 to 1024. */
	UFUNCTION(BlueprintCallable, Category = "Astral", meta = (ReturnDisplayName = "Success"))
	static bool Query(UAstralIndex* Index, const TArray<float>& Vector, int32 K, TArray<FAstralResult>& Results, FString& Error);

	/**
	 * Several queries in one pass over the stored vectors; Queries holds them
	 * row after row. Results holds every query's hits in turn, best first:
	 * Counts[i] hits for query i, after those of the queries before it.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral", meta = (ReturnDisplayName = "Success"))
	static bool QueryBatch(UAstralIndex* Index, const TArray<float>& Queries, int32 K, TArray<FAstralResult>& Results, TArray<int32>& Counts, FString& Error);

	/** What the index holds and how it searches. */
	UFUNCTION(BlueprintCallable, Category = "Astral", meta = (ReturnDisplayName = "Success"))
	static bool GetStats(UAstralIndex* Index, FAstralStats& Stats, FString& Error);

	/**
	 * Writes Index to FilePath, creating its folder if needed. A relative
	 * FilePath is under the project's Saved folder (FPaths::ProjectSavedDir()).
	 * Crash-safe: the new file replaces the old one only once whole, so a crash
	 * leaves one or the other. Adds and removes on other threads wait for it.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral", meta = (ReturnDisplayName = "Success"))
	static bool SaveIndexToFile(UAstralIndex* Index, const FString& FilePath, FString& Error);

	/**
	 * Index as bytes, for a byte array property of a Save Game object; Load
	 * Index From Bytes reads them back. Empty on failure. Indexes over 2 GiB
	 * do not fit an array: save those to a file.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral", meta = (ReturnDisplayName = "Success"))
	static bool SaveIndexToBytes(UAstralIndex* Index, TArray<uint8>& Bytes, FString& Error);

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
	UFUNCTION(BlueprintCallable, Category = "Astral", meta = (ReturnDisplayName = "Success", AdvancedDisplay = "bVerifyInBackground"))
	static bool LoadIndexFromFile(const FString& FilePath, UAstralIndex*& Index, FString& Error, bool bVerifyInBackground = false);

	/**
	 * A new index from bytes Save Index To Bytes made (a save game, a packed
	 * asset's byte array); they are copied, not kept. Damaged or truncated bytes
	 * fail with corrupt data.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral", meta = (ReturnDisplayName = "Success"))
	static bool LoadIndexFromBytes(const TArray<uint8>& Bytes, UAstralIndex*& Index, FString& Error);

	/**
	 * Waits for the background check of an index loaded with Verify In
	 * Background; true when the file is whole. On false (corrupt data), every
	 * other node fails on that index too: drop it and load again. Any other
	 * index was checked whole when made: true at once.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral", meta = (ReturnDisplayName = "Success"))
	static bool VerifyIndex(UAstralIndex* Index, FString& Error);

	/** True when libastral is loaded and its runtime started; if false, LogAstral says why. */
	UFUNCTION(BlueprintPure, Category = "Astral")
	static bool IsAstralAvailable();
};
