// Stand-in for UPackage (UObject/Package.h).
#pragma once

#include "UObject/Object.h"

class UPackage : public UObject
{
public:
	using Super = UPackage;
};
