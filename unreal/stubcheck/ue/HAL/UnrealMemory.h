// Stand-in for Unreal's FMemory (HAL/UnrealMemory.h), the part the plugin
// uses. Not Unreal code.
#pragma once

#include "CoreTypes.h"

#include <cstring>

struct FMemory
{
	static void* Memcpy(void* Dest, const void* Src, SIZE_T Count) { return std::memcpy(Dest, Src, Count); }
	static void* Memzero(void* Dest, SIZE_T Count) { return std::memset(Dest, 0, Count); }
	static int32 Memcmp(const void* Buf1, const void* Buf2, SIZE_T Count) { return std::memcmp(Buf1, Buf2, Count); }
};
