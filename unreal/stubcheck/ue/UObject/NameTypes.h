// Stand-in for Unreal's FName. Not Unreal code.
#pragma once

#include "CoreTypes.h"
#include "Containers/UnrealString.h"

#include <string>

/**
 * As in Unreal, names compare without regard to ASCII case ("Threat" ==
 * "threat"); ToString gives the text the name was made with (Unreal: the
 * spelling first entered in its name table).
 */
class FName
{
public:
	FName() = default;
	FName(const TCHAR* Name) : Text(Name != nullptr ? Name : TEXT("")) {}
	bool IsNone() const { return Text.empty(); }
	FString ToString() const { return FString(Text.c_str()); }
	friend bool operator==(const FName& Lhs, const FName& Rhs)
	{
		if (Lhs.Text.size() != Rhs.Text.size())
		{
			return false;
		}
		for (std::size_t I = 0; I < Lhs.Text.size(); ++I)
		{
			if (Fold(Lhs.Text[I]) != Fold(Rhs.Text[I]))
			{
				return false;
			}
		}
		return true;
	}

private:
	static TCHAR Fold(TCHAR C) { return C >= 'A' && C <= 'Z' ? static_cast<TCHAR>(C - 'A' + 'a') : C; }

	std::basic_string<TCHAR> Text;
};

#define NAME_None FName()
