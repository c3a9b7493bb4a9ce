// Stand-in for IFileManager (HAL/FileManager.h): the calls the plugin makes.
#pragma once

#include "CoreMinimal.h"

class IFileManager
{
protected:
	IFileManager() {}

public:
	static IFileManager& Get();

	virtual bool MakeDirectory(const TCHAR* Path, bool Tree = 0) = 0;
};
