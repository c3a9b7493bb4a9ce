// Breaks category: an exposed property and a Blueprint function without one.
#pragma once

#include "CoreMinimal.h"
#include "Kismet/BlueprintFunctionLibrary.h"
#include "BadCategory.generated.h"

USTRUCT(BlueprintType)
struct FNoCategory
{
	GENERATED_BODY()

	UPROPERTY(EditAnywhere, BlueprintReadWrite) // expect: category
	int32 Value = 0;
};

UCLASS()
class UNoCategoryLibrary : public UBlueprintFunctionLibrary
{
	GENERATED_BODY()

public:
	UFUNCTION(BlueprintCallable) // expect: category
	static bool DoThing(int32 Value);
};
