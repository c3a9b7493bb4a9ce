// Stand-in for TWeakObjectPtr (UObject/WeakObjectPtrTemplates.h).
#pragma once

#include "CoreMinimal.h"

class UObject;

namespace UEStub
{
	/** The live object's serial number, 0 once it is destroyed (ue_runtime.cpp). */
	uint64 ObjectSerial(const UObject* Object);
}

template <class T>
class TWeakObjectPtr
{
public:
	TWeakObjectPtr(TYPE_OF_NULLPTR = nullptr) {}
	template <class U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
	TWeakObjectPtr(U* Object)
		: Pointer(Object)
		, Serial(Object != nullptr ? UEStub::ObjectSerial(Object) : 0)
	{
	}
	TWeakObjectPtr(const TWeakObjectPtr&) = default;
	TWeakObjectPtr& operator=(const TWeakObjectPtr&) = default;
	T* Get() const { return IsValid() ? Pointer : nullptr; }
	bool IsValid() const { return Pointer != nullptr && Serial != 0 && UEStub::ObjectSerial(Pointer) == Serial; }
	void Reset()
	{
		Pointer = nullptr;
		Serial = 0;
	}

private:
	T* Pointer = nullptr;
	uint64 Serial = 0;
};
