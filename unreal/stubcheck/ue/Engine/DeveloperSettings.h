// Stand-in for UDeveloperSettings (DeveloperSettings module).
#pragma once

#include "UObject/Object.h"

class UDeveloperSettings : public UObject
{
public:
	using Super = UDeveloperSettings;
	virtual FName GetContainerName() const;
	virtual FName GetCategoryName() const;
	virtual FName GetSectionName() const;
};
