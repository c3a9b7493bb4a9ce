#include "AstralAsyncQuery.h"

#include "AstralApi.h"
#include "AstralBlueprintHelpers.h"
#include "AstralIndex.h"
#include "AstralNativeIndex.h"
#include "CoreGlobals.h"
#include "UObject/Package.h"

UAstralAsyncQuery* UAstralAsyncQuery::FindNearestAsync(const UObject* WorldContextObject, UAstralIndex* Index, const TArray<float>& Vector,
	const FAstralQueryFilter& Filter, int32 K, bool bIncludePayloads)
{
	UAstralAsyncQuery* Action = NewObject<UAstralAsyncQuery>(GetTransientPackage());
	Action->PendingIndex = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Find Nearest (Async)"), Action->InputError);
	Action->PendingVector = Vector;
	Action->PendingFilter = Filter;
	Action->PendingK = K;
	Action->bPendingIncludePayloads = bIncludePayloads;
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
			bIncludePayloads = bPendingIncludePayloads]()
		{
			TArray<FAstralResult> Results;
			FString Error;
			// The failure message is per thread: FindNearest reads it here, on the worker.
			const bool bSuccess = Native->FindNearest(Vector, K, Filter, bIncludePayloads, Results, Error);
			return TUniqueFunction<void(UAstralAsyncQuery&)>([bSuccess, Results = MoveTemp(Results), Error = MoveTemp(Error)](UAstralAsyncQuery& Action)
			{
				Action.Finish(bSuccess, Results, Error);
			});
		});
}

void UAstralAsyncQuery::Finish(bool bSuccess, const TArray<FAstralResult>& Results, const FString& Error)
{
	check(IsInGameThread());
	if (ShouldBroadcastDelegates())
	{
		if (bSuccess)
		{
			OnCompleted.Broadcast(Results, Error);
		}
		else
		{
			OnFailed.Broadcast(Results, Error);
		}
	}
	SetReadyToDestroy();
}
