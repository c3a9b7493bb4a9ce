// Stand-in for UObject/ObjectMacros.h: the reflection markup expands to
// nothing here. What the Unreal Header Tool checks in it is checked by
// uht_lint.py instead. Not Unreal code.
#pragma once

#include "CoreTypes.h"

#define UCLASS(...)
#define USTRUCT(...)
#define UENUM(...)
#define UPROPERTY(...)
#define UFUNCTION(...)
#define UMETA(...)
#define UPARAM(...)
#define GENERATED_BODY(...)

enum EObjectFlags : uint32
{
	RF_NoFlags = 0x00000000,
	RF_Transient = 0x00000040,
};
