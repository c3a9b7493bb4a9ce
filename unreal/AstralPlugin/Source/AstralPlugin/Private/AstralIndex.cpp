#include "AstralIndex.h"

#include "AstralNativeIndex.h"

int32 UAstralIndex::GetDimension() const
{
	return Native.IsValid() ? Native->GetDimension() : 0;
}

void UAstralIndex::Initialize(const TSharedRef<FAstralNativeIndex, ESPMode::ThreadSafe>& InNative)
{
	// One native index per object, for its whole life.
	check(!Native.IsValid() && !bReleased);
	Native = InNative;
}

void UAstralIndex::Release()
{
	// Async nodes still running hold their own reference: the native index
	// goes when the last of them ends.
	Native.Reset();
	bReleased = true;
}

void UAstralIndex::BeginDestroy()
{
	// Queries still running hold their own reference; the last one out
	// destroys the native index.
	Native.Reset();
	Super::BeginDestroy();
}
