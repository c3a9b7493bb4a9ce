// Stand-in for FPlatformTime (HAL/PlatformTime.h).
#pragma once

#include "CoreTypes.h"

struct FPlatformTime
{
	static double Seconds();
	static uint32 Cycles();
};
