// Breaks static-library: a member function in a Blueprint function library.
#pragma once

#include "CoreMinimal.h"
#include "Kismet/BlueprintFunctionLibrary.h"
#include "BadStatic.generated.h"

UCLASS()
class UMemberLibrary : public UBlueprintFunctionLibrary
{
	GENERATED_BODY()

public:
	UFUNCTION(BlueprintCallable, Category = "Bad") // expect: static-library
	bool NotStatic(int32 Value);
};
