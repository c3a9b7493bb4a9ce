// Breaks delegate-order: a dynamic delegate before the generated include.
#pragma once

#include "CoreMinimal.h"
#include "Kismet/BlueprintAsyncActionBase.h"

DECLARE_DYNAMIC_MULTICAST_DELEGATE_OneParam(FEarlyDelegate, int32, Value); // expect: delegate-order

#include "BadDelegateOrder.generated.h"

UCLASS()
class UEarlyAction : public UBlueprintAsyncActionBase
{
	GENERATED_BODY()

public:
	UPROPERTY(BlueprintAssignable, Category = "Bad")
	FEarlyDelegate OnDone;
};
