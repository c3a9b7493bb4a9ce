// Breaks enum-uint8: a Blueprint enum over int32.
#pragma once

#include "CoreMinimal.h"
#include "BadEnum.generated.h"

UENUM(BlueprintType) // expect: enum-uint8
enum class EWideEnum : int32
{
	First,
	Second,
};
