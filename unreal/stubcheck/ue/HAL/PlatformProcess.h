// Stand-in for FPlatformProcess (HAL/PlatformProcess.h): dynamic library calls.
#pragma once

#include "CoreTypes.h"

struct FPlatformProcess
{
	static void* GetDllHandle(const TCHAR* Filename);
	static void FreeDllHandle(void* DllHandle);
	static void* GetDllExport(void* DllHandle, const TCHAR* ProcName);
};
