// Stand-in for TWeakObjectPtr (UObject/WeakObjectPtrTemplates.h).
#pragma once

#include "CoreMinimal.h"

template <class T>
class TWeakObjectPtr
{
public:
	TWeakObjectPtr(TYPE_OF_NULLPTR = nullptr);
	template <class U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
	TWeakObjectPtr(U* Object);
	TWeakObjectPtr(const TWeakObjectPtr&);
	TWeakObjectPtr& operator=(const TWeakObjectPtr&);
	T* Get() const;
	bool IsValid() const;
	void Reset();
};
