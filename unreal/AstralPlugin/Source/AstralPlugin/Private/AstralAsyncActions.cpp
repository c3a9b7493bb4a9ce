#include "AstralAsyncActions.h"

#include "AstralApi.h"
#include "AstralBlueprintHelpers.h"
#include "AstralIndex.h"
#include "AstralNativeIndex.h"
#include "CoreGlobals.h"
#include "UObject/Package.h"

using namespace UE::Astral::BlueprintLibrary;

UAstralAsyncAddBatch* UAstralAsyncAddBatch::AddMemoriesAsync(const UObject* WorldContextObject, UAstralIndex* Index, const TArray<FAstralMemory>& Memories)
{
	UAstralAsyncAddBatch* Action = NewObject<UAstralAsyncAddBatch>(GetTransientPackage());
	Action->PendingIndex = GetNative(Index, TEXT("Add Memories (Async)"), Action->InputError);
	Action->PendingMemories = Memories;
	Action->KeepAlive(WorldContextObject);
	return Action;
}

void UAstralAsyncAddBatch::Start()
{
	if (!PendingIndex.IsValid())
	{
		FailLater<UAstralAsyncAddBatch>(MoveTemp(InputError));
		return;
	}
	RunOffGameThread<UAstralAsyncAddBatch>(TEXT("AstralAddMemoriesAsync"),
		[Native = MoveTemp(PendingIndex), Memories = MoveTemp(PendingMemories)]()
		{
			FString Error;
			const bool bSuccess = Native->AddMemories(Memories.GetData(), Memories.Num(), false, TEXT("Add Memories (Async)"), Error);
			return TUniqueFunction<void(UAstralAsyncAddBatch&)>([bSuccess, Error = MoveTemp(Error)](UAstralAsyncAddBatch& Action)
			{
				Action.Finish(bSuccess, Error);
			});
		});
}

void UAstralAsyncAddBatch::Finish(bool bSuccess, const FString& Error)
{
	check(IsInGameThread());
	if (ShouldBroadcastDelegates())
	{
		(bSuccess ? OnCompleted : OnFailed).Broadcast(Error);
	}
	SetReadyToDestroy();
}

UAstralAsyncQueryBatch* UAstralAsyncQueryBatch::FindNearestBatchAsync(const UObject* WorldContextObject, UAstralIndex* Index,
	const TArray<FAstralVector>& Queries, const FAstralQueryFilter& Filter, int32 K, bool bIncludePayloads)
{
	UAstralAsyncQueryBatch* Action = NewObject<UAstralAsyncQueryBatch>(GetTransientPackage());
	Action->PendingIndex = GetNative(Index, TEXT("Find Nearest (Batch, Async)"), Action->InputError);
	Action->PendingQueries = Queries;
	Action->PendingFilter = Filter;
	Action->PendingK = K;
	Action->bPendingIncludePayloads = bIncludePayloads;
	Action->KeepAlive(WorldContextObject);
	return Action;
}

void UAstralAsyncQueryBatch::Start()
{
	if (!PendingIndex.IsValid())
	{
		FailLater<UAstralAsyncQueryBatch>(MoveTemp(InputError));
		return;
	}
	RunOffGameThread<UAstralAsyncQueryBatch>(TEXT("AstralFindNearestBatchAsync"),
		[Native = MoveTemp(PendingIndex), Queries = MoveTemp(PendingQueries), Filter = MoveTemp(PendingFilter), K = PendingK,
			bIncludePayloads = bPendingIncludePayloads]()
		{
			TArray<FAstralResult> Results;
			TArray<int32> Counts;
			FString Error;
			const bool bSuccess = Native->FindNearestBatch(Queries, K, Filter, bIncludePayloads, Results, Counts, Error);
			return TUniqueFunction<void(UAstralAsyncQueryBatch&)>(
				[bSuccess, Results = MoveTemp(Results), Counts = MoveTemp(Counts), Error = MoveTemp(Error)](UAstralAsyncQueryBatch& Action)
				{
					Action.Finish(bSuccess, Results, Counts, Error);
				});
		});
}

void UAstralAsyncQueryBatch::Finish(bool bSuccess, const TArray<FAstralResult>& Results, const TArray<int32>& Counts, const FString& Error)
{
	check(IsInGameThread());
	if (ShouldBroadcastDelegates())
	{
		(bSuccess ? OnCompleted : OnFailed).Broadcast(Results, Counts, Error);
	}
	SetReadyToDestroy();
}

UAstralAsyncSave* UAstralAsyncSave::SaveIndexToFileAsync(const UObject* WorldContextObject, UAstralIndex* Index, const FString& FilePath)
{
	UAstralAsyncSave* Action = NewObject<UAstralAsyncSave>(GetTransientPackage());
	const TCHAR* Node = TEXT("Save Index To File (Async)");
	Action->PendingIndex = GetNative(Index, Node, Action->InputError);
	if (Action->PendingIndex.IsValid() &&
		!(ResolvePath(FilePath, Node, Action->PendingPath, Action->InputError) && MakeFolderFor(Action->PendingPath, Node, Action->InputError)))
	{
		Action->PendingIndex.Reset();
	}
	Action->KeepAlive(WorldContextObject);
	return Action;
}

void UAstralAsyncSave::Start()
{
	if (!PendingIndex.IsValid())
	{
		FailLater<UAstralAsyncSave>(MoveTemp(InputError));
		return;
	}
	RunOffGameThread<UAstralAsyncSave>(TEXT("AstralSaveAsync"),
		[Native = MoveTemp(PendingIndex), Path = MoveTemp(PendingPath)]()
		{
			FString Error;
			const bool bSuccess = Native->SaveToFile(Path, Error);
			return TUniqueFunction<void(UAstralAsyncSave&)>([bSuccess, Error = MoveTemp(Error)](UAstralAsyncSave& Action)
			{
				Action.Finish(bSuccess, Error);
			});
		});
}

void UAstralAsyncSave::Finish(bool bSuccess, const FString& Error)
{
	check(IsInGameThread());
	if (ShouldBroadcastDelegates())
	{
		(bSuccess ? OnCompleted : OnFailed).Broadcast(Error);
	}
	SetReadyToDestroy();
}

UAstralAsyncLoad* UAstralAsyncLoad::LoadIndexFromFileAsync(const UObject* WorldContextObject, const FString& FilePath, bool bVerifyInBackground)
{
	UAstralAsyncLoad* Action = NewObject<UAstralAsyncLoad>(GetTransientPackage());
	if (!ResolvePath(FilePath, TEXT("Load Index From File (Async)"), Action->PendingPath, Action->InputError))
	{
		Action->PendingPath.Reset();
	}
	Action->bPendingVerifyInBackground = bVerifyInBackground;
	Action->KeepAlive(WorldContextObject);
	return Action;
}

void UAstralAsyncLoad::Start()
{
	if (PendingPath.IsEmpty())
	{
		FailLater<UAstralAsyncLoad>(MoveTemp(InputError));
		return;
	}
	RunOffGameThread<UAstralAsyncLoad>(TEXT("AstralLoadAsync"),
		[Path = MoveTemp(PendingPath), bVerifyInBackground = bPendingVerifyInBackground]()
		{
			FString Error;
			TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = FAstralNativeIndex::LoadFromFile(Path, bVerifyInBackground, Error);
			// A cancelled load drops the step, and with it the native index.
			return TUniqueFunction<void(UAstralAsyncLoad&)>([Native = MoveTemp(Native), Error = MoveTemp(Error)](UAstralAsyncLoad& Action)
			{
				Action.Finish(Native, Error);
			});
		});
}

void UAstralAsyncLoad::Finish(const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe>& Native, const FString& Error)
{
	check(IsInGameThread());
	if (ShouldBroadcastDelegates())
	{
		if (Native.IsValid())
		{
			// The UObject is made here, on the game thread, never on the worker.
			OnCompleted.Broadcast(NewIndex(Native), Error);
		}
		else
		{
			OnFailed.Broadcast(nullptr, Error);
		}
	}
	SetReadyToDestroy();
}
