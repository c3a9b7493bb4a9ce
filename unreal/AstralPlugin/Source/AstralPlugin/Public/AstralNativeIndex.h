// FAstralNativeIndex: one libastral index behind UE types.

#pragma once

#include "CoreMinimal.h"
#include "Templates/Function.h"
#include "Templates/SharedPointer.h"
#include "AstralApi.h"
#include "AstralTypes.h"

/** Called on the game thread with a query's outcome. */
using FAstralQueryCallback = TUniqueFunction<void(bool bSuccess, TArray<FAstralResult>&& Results, FString&& Error)>;

/**
 * Owns one index handle. Shared (thread-safe reference count) by the
 * UAstralIndex that made it and by the queries running on it; every libastral
 * call is thread-safe, so any method may run on any thread, several at once.
 * Failures return false with OutError set and logged, never crash.
 */
class FAstralNativeIndex
{
public:
	/** Only Create and the Load functions make these: a live table is needed to destroy one. */
	explicit FAstralNativeIndex(astral::Index&& InIndex);

	/** A new index, or null with OutError set. */
	static TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Create(const AstralIndexOptions& Options, FString& OutError);

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

	/** Ids.Num() vectors, row after row in Vectors. */
	bool Add(const TArray<uint64_t>& Ids, const TArray<float>& Vectors, FString& OutError);
	/** One vector, without an array for its id. */
	bool Add(uint64_t Id, const TArray<float>& Vector, FString& OutError);
	bool Remove(const TArray<uint64_t>& Ids, FString& OutError);

	/** Sizes OutResults to K once; libastral writes the hits into it and it is trimmed to their count. */
	bool Query(const TArray<float>& Vector, int32 K, TArray<FAstralResult>& OutResults, FString& OutError) const;

	/** Each query's hits in turn, OutCounts[i] of them for query i. */
	bool QueryBatch(const TArray<float>& Queries, int32 K, TArray<FAstralResult>& OutResults, TArray<int32>& OutCounts, FString& OutError) const;

	bool GetStats(FAstralStats& OutStats, FString& OutError) const;

	/** Writes the index to Path (a full path), replacing the file only once the new one is whole. */
	bool SaveToFile(const FString& Path, FString& OutError) const;

	/** The index file's bytes, in OutBytes (emptied on failure). */
	bool SaveToBytes(TArray<uint8>& OutBytes, FString& OutError) const;

	/** Waits for the background check of a file loaded with bVerifyInBackground; true at once for any other index. */
	bool Verify(FString& OutError) const;

	/**
	 * Runs Query on a UE::Tasks worker, then OnGameThread on the game thread.
	 * The task holds Self, so the index outlives its UAstralIndex if need be.
	 */
	static void QueryAsync(const TSharedRef<FAstralNativeIndex, ESPMode::ThreadSafe>& Self, TArray<float> Vector, int32 K, FAstralQueryCallback OnGameThread);

	/** The astral.hpp index, for code that measures through it (the Automation tests). */
	astral::Index& GetIndex() { return Index; }
	const astral::Index& GetIndex() const { return Index; }

private:
	bool AddRows(astral::Span<const uint64_t> Ids, const TArray<float>& Vectors, FString& OutError);

	astral::Index Index;
};
