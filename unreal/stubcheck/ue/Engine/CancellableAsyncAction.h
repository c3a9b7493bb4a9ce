// Stand-in for UCancellableAsyncAction (Engine/CancellableAsyncAction.h).
#pragma once

#include "Kismet/BlueprintAsyncActionBase.h"

class FTimerManager;

class UCancellableAsyncAction : public UBlueprintAsyncActionBase
{
public:
	using Super = UCancellableAsyncAction;
	virtual void Cancel();
	virtual bool IsActive() const;
	virtual bool ShouldBroadcastDelegates() const;
	virtual bool IsRegistered() const;
	FTimerManager* GetTimerManager() const;
};
