// Stand-in for FPaths (Misc/Paths.h); the harness defines the rest in
// runtime/ue_runtime.cpp.
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
		FString Out;
		(AppendPath(Out, FStringView(InPaths)), ...);
		return Out;
	}
	static FString ConvertRelativePathToFull(const FString& InPath);
	static const FString& ProjectSavedDir();
	static FString GetPath(const FString& InPath);
	static bool IsRelative(const FString& InPath);
	static bool FileExists(const FString& InPath);

private:
	/** One '/' between parts, as FPaths::Combine joins them. */
	static void AppendPath(FString& Out, FStringView Part)
	{
		if (Part.Len() == 0)
		{
			return;
		}
		const TCHAR* Data = Part.GetData();
		if (Out.Len() > 0 && (*Out)[Out.Len() - 1] != TEXT('/') && Data[0] != TEXT('/'))
		{
			Out += TEXT("/");
		}
		Out += FString(Part.Len(), Data);
	}
};
