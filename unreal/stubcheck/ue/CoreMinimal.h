// Stand-in for Unreal's CoreMinimal.h: the core types, containers, strings,
// logging, shared pointers, math and delegates. Not Unreal code.
#pragma once

#include "CoreTypes.h"
#include "Containers/Array.h"
#include "Containers/UnrealString.h"
#include "Delegates/Delegate.h"
#include "HAL/UnrealMemory.h"
#include "Logging/LogMacros.h"
#include "Math/UnrealMathUtility.h"
#include "Templates/SharedPointer.h"
#include "UObject/NameTypes.h"
