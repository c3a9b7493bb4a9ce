// Stand-in for UBlueprintFunctionLibrary (Engine module).
#pragma once

#include "UObject/Object.h"

class UBlueprintFunctionLibrary : public UObject
{
public:
	using Super = UBlueprintFunctionLibrary;
};
