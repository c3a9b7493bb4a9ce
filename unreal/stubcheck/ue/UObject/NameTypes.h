// Stand-in for Unreal's FName. Not Unreal code.
#pragma once

#include "CoreTypes.h"

#include <string>

class FName
{
public:
	FName() = default;
	FName(const TCHAR* Name) : Text(Name != nullptr ? Name : TEXT("")) {}
	bool IsNone() const { return Text.empty(); }
	friend bool operator==(const FName& Lhs, const FName& Rhs) { return Lhs.Text == Rhs.Text; }

private:
	std::basic_string<TCHAR> Text;
};

#define NAME_None FName()
