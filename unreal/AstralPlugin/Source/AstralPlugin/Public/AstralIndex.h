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
 * index is shared with the queries running on it, so it lives until the last
 * of them ends even if this object is collected first.
 */
UCLASS(BlueprintType)
class ASTRALPLUGIN_API UAstralIndex : public UObject
{
	GENERATED_BODY()

public:
	/** The length of the vectors this index stores; 0 if it was not made by Create Index or a Load Index node. */
	UFUNCTION(BlueprintPure, Category = "Astral")
	int32 GetDimension() const;

	/** The native index, or null. Game thread; the pointer itself may then travel to any thread. */
	TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> GetNative() const { return Native; }

	/** Attaches the native index, once; Create Index and the Load Index nodes call it. */
	void Initialize(const TSharedRef<FAstralNativeIndex, ESPMode::ThreadSafe>& InNative);

	virtual void BeginDestroy() override;

private:
	TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native;
};
