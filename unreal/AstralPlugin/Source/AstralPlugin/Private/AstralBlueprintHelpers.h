// What the Blueprint library and the async nodes share.

#pragma once

#include "CoreMinimal.h"
#include "Templates/SharedPointer.h"

class FAstralNativeIndex;
class UAstralIndex;

namespace UE::Astral::BlueprintLibrary
{
	/** The native index behind Index, or null with OutError set. Game thread. */
	TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> GetNative(const UAstralIndex* Index, const TCHAR* Node, FString& OutError);

	/** A Blueprint handle on a native index just made. Game thread. */
	UAstralIndex* NewIndex(const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe>& Native);

	/**
	 * FilePath made full: a relative one is taken under the project's Saved
	 * folder, since libastral would resolve it against the working directory,
	 * which is not the project's. False with OutError set when it is empty.
	 */
	bool ResolvePath(const FString& FilePath, const TCHAR* Node, FString& OutPath, FString& OutError);

	/** Creates the folder a save to Path writes in; false with OutError set. */
	bool MakeFolderFor(const FString& Path, const TCHAR* Node, FString& OutError);

	/** Blueprint has no uint64: ids travel as int64 and keep their 64 bits. */
	TArray<uint64_t> ToNativeIds(const TArray<int64>& Ids);
}
