// Find Nearest (Async) and Recall Memories (Async): an Astral query on a
// worker thread, results on the game thread.

#pragma once

#include "CoreMinimal.h"
#include "Templates/SharedPointer.h"
#include "AstralAsyncAction.h"
#include "AstralNativeIndex.h"
#include "AstralTypes.h"
#include "AstralAsyncQuery.generated.h"

class UAstralIndex;

DECLARE_DYNAMIC_MULTICAST_DELEGATE_FourParams(FAstralQueryResultDelegate, const TArray<FAstralResult>&, Results, bool, bComplete, float, Covered,
	const FString&, Error);

/**
 * Runs one query on a UE::Tasks worker, so the game thread does not wait for
 * it, and fires On Completed or On Failed on the game thread on a later tick.
 * The worker holds the native index, never this object or the UAstralIndex;
 * the action itself stays alive until then (UAstralAsyncAction). Cancel: no
 * pin fires.
 */
UCLASS()
class ASTRALPLUGIN_API UAstralAsyncQuery : public UAstralAsyncAction
{
	GENERATED_BODY()

public:
	/**
	 * The K memories nearest to Vector that pass Filter, best first, computed
	 * off the game thread; each with its payload unless Include Payloads is off.
	 * Budget Microseconds above 0: the search returns by then with the best
	 * it found (Complete false, Covered the share searched); 0: no budget.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Query", meta = (BlueprintInternalUseOnly = "true", WorldContext = "WorldContextObject",
		DisplayName = "Find Nearest (Async)", AutoCreateRefTerm = "Filter", AdvancedDisplay = "bIncludePayloads",
		Keywords = "astral query search knn similar recall nearest neighbor budget frame"))
	static UAstralAsyncQuery* FindNearestAsync(const UObject* WorldContextObject, UAstralIndex* Index, const TArray<float>& Vector,
		const FAstralQueryFilter& Filter, int32 K = 10, bool bIncludePayloads = true, int32 BudgetMicroseconds = 0);

	/**
	 * Recall Memories computed off the game thread: the K memories passing
	 * Filter with the best weighted sum of similarity, recency at Now (halving
	 * every Weights.Half Life) and importance. Budget Microseconds as Find Nearest.
	 */
	UFUNCTION(BlueprintCallable, Category = "Astral|Query", meta = (BlueprintInternalUseOnly = "true", WorldContext = "WorldContextObject",
		DisplayName = "Recall Memories (Async)", AutoCreateRefTerm = "Filter,Weights", AdvancedDisplay = "bIncludePayloads",
		Keywords = "astral query search recall remember memory recent important rank budget"))
	static UAstralAsyncQuery* RecallMemoriesAsync(const UObject* WorldContextObject, UAstralIndex* Index, const TArray<float>& Vector,
		const FAstralQueryFilter& Filter, const FAstralRecallWeights& Weights, int64 Now, int32 K = 10, bool bIncludePayloads = true,
		int32 BudgetMicroseconds = 0);

	/**
	 * The hits, best first; Error is empty. Complete is false when Budget
	 * Microseconds ran out first (Covered: the share searched), else true and 1.
	 */
	UPROPERTY(BlueprintAssignable, Category = "Astral")
	FAstralQueryResultDelegate OnCompleted;

	/** Results is empty; Error says why. */
	UPROPERTY(BlueprintAssignable, Category = "Astral")
	FAstralQueryResultDelegate OnFailed;

	/** Game thread: broadcasts the outcome and lets the action go. */
	void Finish(bool bSuccess, const TArray<FAstralResult>& Results, const FAstralSearchCoverage& Coverage, const FString& Error);
	void Fail(FString Error) { Finish(false, TArray<FAstralResult>(), FAstralSearchCoverage(), Error); }

protected:
	virtual void Start() override;

private:
	/** What Activate starts; the factory's parameters, kept under other names. */
	TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> PendingIndex;
	TArray<float> PendingVector;
	FAstralQueryFilter PendingFilter;
	int32 PendingK = 0;
	bool bPendingIncludePayloads = true;
	/** Ranking (Recall Memories) and budget; the defaults are Find Nearest's. */
	FAstralSearchSettings PendingSettings;
	/** Set when the node was given no usable index. */
	FString InputError;
};
