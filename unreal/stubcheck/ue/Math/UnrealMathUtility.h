// Stand-in for the FMath functions the plugin uses. Not Unreal code.
#pragma once

#include "CoreTypes.h"

#include <cmath>

struct FMath
{
	template <class T>
	static constexpr T Abs(const T A)
	{
		return A < T(0) ? -A : A;
	}
	template <class T>
	static constexpr T Max(const T A, const T B)
	{
		return A < B ? B : A;
	}
	template <class T>
	static constexpr T Min(const T A, const T B)
	{
		return A < B ? A : B;
	}
	static double Pow(double A, double B)
	{
		return std::pow(A, B);
	}
};
