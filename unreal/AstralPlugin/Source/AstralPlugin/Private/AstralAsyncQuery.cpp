#include "AstralAsyncQuery.h"

#include "AstralBlueprintHelpers.h"
#include "AstralIndex.h"
#include "AstralNativeIndex.h"
#include "CoreGlobals.h"
#include "UObject/Package.h"

UAstralAsyncQuery* UAstralAsyncQuery::QueryAsync(const UObject* WorldContextObject, UAstralIndex* Index, const TArray<float>& Vector, int32 K)
{
	UAstralAsyncQuery* Action = NewObject<UAstralAsyncQuery>(GetTransientPackage());
	Action->PendingIndex = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Query (Async)"), Action->InputError);
	Action->PendingVector = Vector;
	Action->PendingK = K;
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
	RunOffGameThread<UAstralAsyncQuery>(TEXT("AstralQueryAsync"),
		[Native = MoveTemp(PendingIndex), Vector = MoveTemp(PendingVector), K = PendingK]()
		{
			TArray<FAstralResult> Results;
			FString Error;
			// The failure message is per thread: Query reads it here, on the worker.
			const bool bSuccess = Native->Query(Vector, K, Results, Error);
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
