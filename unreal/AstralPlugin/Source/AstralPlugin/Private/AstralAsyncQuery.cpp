#include "AstralAsyncQuery.h"

#include "AstralApi.h"
#include "AstralBlueprintHelpers.h"
#include "AstralIndex.h"
#include "AstralNativeIndex.h"
#include "CoreGlobals.h"
#include "UObject/Package.h"

UAstralAsyncQuery* UAstralAsyncQuery::FindNearestAsync(const UObject* WorldContextObject, UAstralIndex* Index, const TArray<float>& Vector,
	const FAstralQueryFilter& Filter, int32 K, bool bIncludePayloads, int32 BudgetMicroseconds)
{
	UAstralAsyncQuery* Action = NewObject<UAstralAsyncQuery>(GetTransientPackage());
	Action->PendingIndex = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Find Nearest (Async)"), Action->InputError);
	Action->PendingVector = Vector;
	Action->PendingFilter = Filter;
	Action->PendingK = K;
	Action->bPendingIncludePayloads = bIncludePayloads;
	Action->PendingSettings.BudgetMicroseconds = BudgetMicroseconds;
	Action->KeepAlive(WorldContextObject);
	return Action;
}

UAstralAsyncQuery* UAstralAsyncQuery::RecallMemoriesAsync(const UObject* WorldContextObject, UAstralIndex* Index, const TArray<float>& Vector,
	const FAstralQueryFilter& Filter, const FAstralRecallWeights& Weights, int64 Now, int32 K, bool bIncludePayloads, int32 BudgetMicroseconds)
{
	UAstralAsyncQuery* Action = NewObject<UAstralAsyncQuery>(GetTransientPackage());
	Action->PendingIndex = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Recall Memories (Async)"), Action->InputError);
	Action->PendingVector = Vector;
	Action->PendingFilter = Filter;
	Action->PendingK = K;
	Action->bPendingIncludePayloads = bIncludePayloads;
	Action->PendingSettings.bRecall = true;
	Action->PendingSettings.Weights = Weights;
	Action->PendingSettings.Now = Now;
	Action->PendingSettings.BudgetMicroseconds = BudgetMicroseconds;
	Action->KeepAlive(WorldContextObject);
	return Action;
}

void UAstralAsyncQuery::Start()
{
	if (!PendingIndex.IsValid())
	{
		FailLater<UAstralAsyncQuery>(MoveTemp(InputError));
		return;
	}
	// The task holds its own reference to the native index; this object only
	// sees the outcome, through the weak handle RunOffGameThread keeps.
	RunOffGameThread<UAstralAsyncQuery>(TEXT("AstralFindNearestAsync"),
		[Native = MoveTemp(PendingIndex), Vector = MoveTemp(PendingVector), Filter = MoveTemp(PendingFilter), K = PendingK,
			bIncludePayloads = bPendingIncludePayloads, Settings = PendingSettings]()
		{
			TArray<FAstralResult> Results;
			FAstralSearchCoverage Coverage;
			FString Error;
			// The failure message is per thread: Search reads it here, on the worker.
			const bool bSuccess = Native->Search(Vector, K, Filter, Settings, bIncludePayloads, Results, Coverage, Error);
			return TUniqueFunction<void(UAstralAsyncQuery&)>(
				[bSuccess, Results = MoveTemp(Results), Coverage, Error = MoveTemp(Error)](UAstralAsyncQuery& Action)
				{
					Action.Finish(bSuccess, Results, Coverage, Error);
				});
		});
}

void UAstralAsyncQuery::Finish(bool bSuccess, const TArray<FAstralResult>& Results, const FAstralSearchCoverage& Coverage, const FString& Error)
{
	check(IsInGameThread());
	if (ShouldBroadcastDelegates())
	{
		if (bSuccess)
		{
			OnCompleted.Broadcast(Results, Coverage.bComplete, Coverage.Covered, Error);
		}
		else
		{
			OnFailed.Broadcast(Results, Coverage.bComplete, Coverage.Covered, Error);
		}
	}
	SetReadyToDestroy();
}
