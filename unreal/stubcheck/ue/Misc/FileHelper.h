// Stand-in for FFileHelper (Misc/FileHelper.h).
#pragma once

#include "CoreMinimal.h"

struct FFileHelper
{
	static bool LoadFileToArray(TArray<uint8>& Result, const TCHAR* Filename, uint32 Flags = 0);
	static bool LoadFileToString(FString& Result, const TCHAR* Filename);
};
