// Stand-in for Unreal's FName. Not Unreal code.
#pragma once

#include "CoreTypes.h"

class FName
{
public:
	FName();
	FName(const TCHAR* Name);
	bool IsNone() const;
	friend bool operator==(const FName& Lhs, const FName& Rhs);
};

#define NAME_None FName()
