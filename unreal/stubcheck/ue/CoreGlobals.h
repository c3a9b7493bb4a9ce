// Stand-in for Unreal's CoreGlobals.h. Not Unreal code.
#pragma once

#include "CoreTypes.h"

bool IsInGameThread();
