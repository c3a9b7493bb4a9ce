#include "AstralAsyncQuery.h"

#include "Async/Async.h"
#include "AstralIndex.h"
#include "AstralNativeIndex.h"
#include "CoreGlobals.h"
#include "UObject/Package.h"
#include "UObject/WeakObjectPtrTemplates.h"

UAstralAsyncQuery* UAstralAsyncQuery::QueryAsync(const UObject* WorldContextObject, UAstralIndex* Index, const TArray<float>& Vector, int32 K)
{
	UAstralAsyncQuery* Action = NewObject<UAstralAsyncQuery>(GetTransientPackage());
	if (Index == nullptr)
	{
		Action->InputError = TEXT("Astral Query (Async): Index is None");
	}
	else
	{
		Action->PendingIndex = Index->GetNative();
		if (!Action->PendingIndex.IsValid())
		{
			Action->InputError = TEXT("Astral Query (Async): Index was not made by Create Index or a Load Index node");
		}
	}
	Action->PendingVector = Vector;
	Action->PendingK = K;
	// Keeps the action alive until SetReadyToDestroy when there is a game
	// instance; without one the weak pointer in Activate makes a collected
	// action harmless. (A null context would only log a warning.)
	if (WorldContextObject != nullptr)
	{
		Action->RegisterWithGameInstance(WorldContextObject);
	}
	return Action;
}

void UAstralAsyncQuery::Activate()
{
	// Only a weak handle travels with the query: the worker never touches this object.
	TWeakObjectPtr<UAstralAsyncQuery> WeakThis(this);
	FAstralQueryCallback OnGameThread = [WeakThis](bool bSuccess, TArray<FAstralResult>&& Results, FString&& Error)
	{
		if (UAstralAsyncQuery* Action = WeakThis.Get())
		{
			Action->Finish(bSuccess, Results, Error);
		}
	};

	if (!PendingIndex.IsValid())
	{
		FString Error;
		UE::Astral::Fail(Error, InputError);
		// Outcomes always arrive on a later tick, failures too.
		AsyncTask(ENamedThreads::GameThread, [OnGameThread = MoveTemp(OnGameThread), Error = MoveTemp(Error)]() mutable
		{
			OnGameThread(false, TArray<FAstralResult>(), MoveTemp(Error));
		});
		return;
	}

	FAstralNativeIndex::QueryAsync(PendingIndex.ToSharedRef(), MoveTemp(PendingVector), PendingK, MoveTemp(OnGameThread));
	// The task holds its own reference now.
	PendingIndex.Reset();
}

void UAstralAsyncQuery::Finish(bool bSuccess, const TArray<FAstralResult>& Results, const FString& Error)
{
	check(IsInGameThread());
	if (bSuccess)
	{
		OnCompleted.Broadcast(Results, Error);
	}
	else
	{
		OnFailed.Broadcast(Results, Error);
	}
	SetReadyToDestroy();
}
