// Breaks outcome-pins: exec pins expanded from a bool read True and False,
// where a designer expects Success and Failure (an EAstralOutcome-like UENUM).
#pragma once

#include "CoreMinimal.h"
#include "Kismet/BlueprintFunctionLibrary.h"
#include "BadOutcomePins.generated.h"

UENUM(BlueprintType)
enum class EPinOutcome : uint8
{
	Success,
	Failure,
};

UCLASS()
class UOutcomePinsLibrary : public UBlueprintFunctionLibrary
{
	GENERATED_BODY()

public:
	UFUNCTION(BlueprintCallable, Category = "Bad", meta = (ExpandBoolAsExecs = "ReturnValue")) // expect: outcome-pins
	static bool BoolReturned(int32 Value, FString& Error);

	UFUNCTION(BlueprintCallable, Category = "Bad", meta = (ExpandEnumAsExecs = "bDone")) // expect: outcome-pins
	static void BoolParameter(bool& bDone);

	UFUNCTION(BlueprintCallable, Category = "Bad", meta = (ExpandEnumAsExecs = "ReturnValue"))
	static EPinOutcome EnumReturned(int32 Value, FString& Error);
};
