// Stand-in for UBlueprintAsyncActionBase (Engine module).
#pragma once

#include "UObject/Object.h"

class UGameInstance;

class UBlueprintAsyncActionBase : public UObject
{
public:
	using Super = UBlueprintAsyncActionBase;
	virtual void Activate();
	virtual void RegisterWithGameInstance(const UObject* WorldContextObject);
	virtual void RegisterWithGameInstance(UGameInstance* GameInstance);
	virtual void SetReadyToDestroy();
};
