// Query (Async): an Astral query on a worker thread, results on the game thread.

#pragma once

#include "CoreMinimal.h"
#include "Kismet/BlueprintAsyncActionBase.h"
#include "Templates/SharedPointer.h"
#include "AstralTypes.h"
#include "AstralAsyncQuery.generated.h"

class FAstralNativeIndex;
class UAstralIndex;

DECLARE_DYNAMIC_MULTICAST_DELEGATE_TwoParams(FAstralQueryResultDelegate, const TArray<FAstralResult>&, Results, const FString&, Error);

/**
 * Runs one query on a UE::Tasks worker, so the game thread does not wait for
 * it, and fires On Completed or On Failed on the game thread on a later tick.
 * The worker holds the native index, never this object or the UAstralIndex.
 */
UCLASS()
class ASTRALPLUGIN_API UAstralAsyncQuery : public UBlueprintAsyncActionBase
{
	GENERATED_BODY()

public:
	/** The K stored vectors nearest to Vector, best first, computed off the game thread. */
	UFUNCTION(BlueprintCallable, Category = "Astral", meta = (BlueprintInternalUseOnly = "true", WorldContext = "WorldContextObject", DisplayName = "Query (Async)"))
	static UAstralAsyncQuery* QueryAsync(const UObject* WorldContextObject, UAstralIndex* Index, const TArray<float>& Vector, int32 K = 10);

	/** The hits, best first; Error is empty. */
	UPROPERTY(BlueprintAssignable, Category = "Astral")
	FAstralQueryResultDelegate OnCompleted;

	/** Results is empty; Error says why. */
	UPROPERTY(BlueprintAssignable, Category = "Astral")
	FAstralQueryResultDelegate OnFailed;

	virtual void Activate() override;

private:
	/** Game thread: broadcasts the outcome and lets the action go. */
	void Finish(bool bSuccess, const TArray<FAstralResult>& Results, const FString& Error);

	/** What Activate starts; the factory's parameters, kept under other names. */
	TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> PendingIndex;
	TArray<float> PendingVector;
	int32 PendingK = 0;
	/** Set when the node was given no usable index. */
	FString InputError;
};
