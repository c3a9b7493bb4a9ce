// Stand-in for FCommandLine (Misc/CommandLine.h).
#pragma once

#include "CoreTypes.h"

struct FCommandLine
{
	static const TCHAR* Get();
};
