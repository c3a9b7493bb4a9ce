// The async Astral nodes besides Find Nearest (Async): Add Memories, Find
// Nearest (Batch), Save Index To File and Load Index From File, each on a worker thread with its
// outcome on the game thread, so a large batch, a save with its flush to disk
// or the load of a large file never hitches a frame.

#pragma once

#include "CoreMinimal.h"
#include "Templates/SharedPointer.h"
#include "AstralAsyncAction.h"
#include "AstralTypes.h"
#include "AstralAsyncActions.generated.h"

class FAstralNativeIndex;
class UAstralIndex;

DECLARE_DYNAMIC_MULTICAST_DELEGATE_OneParam(FAstralAsyncDoneDelegate, const FString&, Error);
DECLARE_DYNAMIC_MULTICAST_DELEGATE_ThreeParams(FAstralQueryBatchResultDelegate, const TArray<FAstralResult>&, Results, const TArray<int32>&, Counts, const FString&, Error);
DECLARE_DYNAMIC_MULTICAST_DELEGATE_TwoParams(FAstralLoadResultDelegate, UAstralIndex*, Index, const FString&, Error);

/** Add Memories (Async): Add Memories (Batch) on a worker. */
UCLASS()
class ASTRALPLUGIN_API UAstralAsyncAddBatch : public UAstralAsyncAction
{
	GENERATED_BODY()

public:
	/**
	 * Stores Memories (vectors with their tags, owners and payloads) off the
	 * game thread. All or nothing. Queries meanwhile see the index before or
	 * after the batch.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Index", meta = (BlueprintInternalUseOnly = "true", WorldContext = "WorldContextObject",
		DisplayName = "Add Memories (Async)", Keywords = "astral insert store remember batch many"))
	static UAstralAsyncAddBatch* AddMemoriesAsync(const UObject* WorldContextObject, UAstralIndex* Index, const TArray<FAstralMemory>& Memories);

	/** Every memory is stored; Error is empty. */
	UPROPERTY(BlueprintAssignable, Category = "Astral")
	FAstralAsyncDoneDelegate OnCompleted;

	/** None is stored; Error says why. */
	UPROPERTY(BlueprintAssignable, Category = "Astral")
	FAstralAsyncDoneDelegate OnFailed;

	/** Game thread: broadcasts the outcome and lets the action go. */
	void Finish(bool bSuccess, const FString& Error);
	void Fail(FString Error) { Finish(false, Error); }

protected:
	virtual void Start() override;

private:
	TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> PendingIndex;
	TArray<FAstralMemory> PendingMemories;
	FString InputError;
};

/** Find Nearest (Batch, Async): Find Nearest (Batch) on a worker. */
UCLASS()
class ASTRALPLUGIN_API UAstralAsyncQueryBatch : public UAstralAsyncAction
{
	GENERATED_BODY()

public:
	/**
	 * Find Nearest for each of Queries in one pass, off the game thread, Filter
	 * applying to all. Results holds every query's hits in turn, best first:
	 * Counts[i] hits for query i, after those of the queries before it.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Query", meta = (BlueprintInternalUseOnly = "true", WorldContext = "WorldContextObject",
		DisplayName = "Find Nearest (Batch, Async)", AutoCreateRefTerm = "Filter", AdvancedDisplay = "bIncludePayloads",
		Keywords = "astral query search knn similar batch many"))
	static UAstralAsyncQueryBatch* FindNearestBatchAsync(const UObject* WorldContextObject, UAstralIndex* Index, const TArray<FAstralVector>& Queries,
		const FAstralQueryFilter& Filter, int32 K = 10, bool bIncludePayloads = true);

	/** The hits and their counts; Error is empty. */
	UPROPERTY(BlueprintAssignable, Category = "Astral")
	FAstralQueryBatchResultDelegate OnCompleted;

	/** Results and Counts are empty; Error says why. */
	UPROPERTY(BlueprintAssignable, Category = "Astral")
	FAstralQueryBatchResultDelegate OnFailed;

	/** Game thread: broadcasts the outcome and lets the action go. */
	void Finish(bool bSuccess, const TArray<FAstralResult>& Results, const TArray<int32>& Counts, const FString& Error);
	void Fail(FString Error) { Finish(false, TArray<FAstralResult>(), TArray<int32>(), Error); }

protected:
	virtual void Start() override;

private:
	TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> PendingIndex;
	TArray<FAstralVector> PendingQueries;
	FAstralQueryFilter PendingFilter;
	int32 PendingK = 0;
	bool bPendingIncludePayloads = true;
	FString InputError;
};

/** Save Index To File (Async): the save, with its flush to disk, on a worker. */
UCLASS()
class ASTRALPLUGIN_API UAstralAsyncSave : public UAstralAsyncAction
{
	GENERATED_BODY()

public:
	/**
	 * Writes Index to FilePath off the game thread, as Save Index To File (a
	 * relative path is under the project's Saved folder; crash-safe). Adds and
	 * removes wait for it; queries go on. Cancel does not stop a save begun.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Persistence", meta = (BlueprintInternalUseOnly = "true", WorldContext = "WorldContextObject",
		DisplayName = "Save Index To File (Async)", Keywords = "astral write store disk"))
	static UAstralAsyncSave* SaveIndexToFileAsync(const UObject* WorldContextObject, UAstralIndex* Index, const FString& FilePath);

	/** The file is whole on disk; Error is empty. */
	UPROPERTY(BlueprintAssignable, Category = "Astral")
	FAstralAsyncDoneDelegate OnCompleted;

	/** The previous file, if any, is unchanged; Error says why. */
	UPROPERTY(BlueprintAssignable, Category = "Astral")
	FAstralAsyncDoneDelegate OnFailed;

	/** Game thread: broadcasts the outcome and lets the action go. */
	void Finish(bool bSuccess, const FString& Error);
	void Fail(FString Error) { Finish(false, Error); }

protected:
	virtual void Start() override;

private:
	TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> PendingIndex;
	FString PendingPath;
	FString InputError;
};

/** Load Index From File (Async): the load, with its checks, on a worker. */
UCLASS()
class ASTRALPLUGIN_API UAstralAsyncLoad : public UAstralAsyncAction
{
	GENERATED_BODY()

public:
	/**
	 * A new index from a file Save Index To File wrote, loaded off the game
	 * thread, as Load Index From File: Win64, Linux and Mac map the file, and
	 * every checksum is checked here, on the worker, unless Verify In
	 * Background. Cancelled, the loaded index is dropped.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Persistence", meta = (BlueprintInternalUseOnly = "true", WorldContext = "WorldContextObject",
		DisplayName = "Load Index From File (Async)", AdvancedDisplay = "bVerifyInBackground", Keywords = "astral read open disk"))
	static UAstralAsyncLoad* LoadIndexFromFileAsync(const UObject* WorldContextObject, const FString& FilePath, bool bVerifyInBackground = false);

	/** The new index; Error is empty. */
	UPROPERTY(BlueprintAssignable, Category = "Astral")
	FAstralLoadResultDelegate OnCompleted;

	/** Index is None; Error says why. */
	UPROPERTY(BlueprintAssignable, Category = "Astral")
	FAstralLoadResultDelegate OnFailed;

	/** Game thread: wraps Native in a new index, broadcasts the outcome and lets the action go. */
	void Finish(const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe>& Native, const FString& Error);
	void Fail(FString Error) { Finish(nullptr, Error); }

protected:
	virtual void Start() override;

private:
	FString PendingPath;
	bool bPendingVerifyInBackground = false;
	FString InputError;
};
