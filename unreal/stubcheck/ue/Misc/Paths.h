// Stand-in for FPaths (Misc/Paths.h).
#pragma once

#include "CoreMinimal.h"

class FPaths
{
public:
	template <typename... PathTypes>
	static FString Combine(PathTypes&&... InPaths)
	{
		static_assert(sizeof...(PathTypes) > 0, "FPaths::Combine needs a path");
		static_assert(((std::is_convertible_v<PathTypes&&, FStringView>) && ...), "FPaths::Combine takes strings");
		((void)InPaths, ...);
		return FString();
	}
	static FString ConvertRelativePathToFull(const FString& InPath);
	static const FString& ProjectSavedDir();
	static FString GetPath(const FString& InPath);
	static bool IsRelative(const FString& InPath);
};
