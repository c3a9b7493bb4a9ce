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

	/** True when libastral is loaded and its runtime started; if false, LogAstral says why. */
	UFUNCTION(BlueprintPure, Category = "Astral")
	static bool IsAstralAvailable();
};
