// Stand-in for FParse (Misc/Parse.h).
#pragma once

#include "CoreMinimal.h"

struct FParse
{
	static bool Value(const TCHAR* Stream, const TCHAR* Match, FString& Value, bool bShouldStopOnSeparator = true);
	static bool Value(const TCHAR* Stream, const TCHAR* Match, int32& Value);
	static bool Param(const TCHAR* Stream, const TCHAR* Param);
};
