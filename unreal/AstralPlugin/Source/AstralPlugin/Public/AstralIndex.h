// UAstralIndex: a Blueprint handle on one native Astral index.

#pragma once

#include "CoreMinimal.h"
#include "Templates/SharedPointer.h"
#include "UObject/Object.h"
#include "AstralIndex.generated.h"

class FAstralNativeIndex;

/**
 * Vectors of one dimension stored under int64 ids, made by the Create Index
 * node or a Load Index node and used by the other Astral nodes. The native
 * index is shared with the async nodes running on it, so it lives until the
 * last of them ends even if this object is collected or released first.
 * Game thread only, like every UObject: C++ on other threads takes the
 * FAstralNativeIndex (GetNative) and uses that.
 */
UCLASS(BlueprintType)
class ASTRALPLUGIN_API UAstralIndex : public UObject
{
	GENERATED_BODY()

public:
	/** The length of the vectors this index stores; 0 if it was released or not made by Create Index or a Load Index node. */
	UFUNCTION(BlueprintPure, Category = "Astral|Index")
	int32 GetDimension() const;

	/** The native index, or null once released. Game thread; the pointer itself may then travel to any thread. */
	TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> GetNative() const { return Native; }

	/** True once Release Index dropped the native index. */
	bool IsReleased() const { return bReleased; }

	/** Attaches the native index, once; Create Index and the Load Index nodes call it. */
	void Initialize(const TSharedRef<FAstralNativeIndex, ESPMode::ThreadSafe>& InNative);

	/** Drops this object's reference to the native index now (Release Index); every later node on it fails. */
	void Release();

	virtual void BeginDestroy() override;

private:
	TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native;
	bool bReleased = false;
};
