// Stand-in for Unreal's shared pointers: TSharedPtr, TSharedRef (never
// null, no default constructor), MakeShared, MakeShareable. The mode is part
// of the type, as in Unreal. Reference counting is left out: only the types
// matter here. Not Unreal code.
#pragma once

#include "CoreTypes.h"

enum class ESPMode : uint8
{
	NotThreadSafe = 0,
	ThreadSafe = 1,
};

template <class ObjectType, ESPMode Mode = ESPMode::ThreadSafe>
class TSharedRef;

template <class ObjectType, ESPMode Mode = ESPMode::ThreadSafe>
class TSharedPtr
{
public:
	TSharedPtr(TYPE_OF_NULLPTR = nullptr) {}
	TSharedPtr(const TSharedPtr&) = default;
	TSharedPtr& operator=(const TSharedPtr&) = default;
	template <class OtherType, typename = std::enable_if_t<std::is_convertible_v<OtherType*, ObjectType*>>>
	TSharedPtr(const TSharedPtr<OtherType, Mode>& Other)
		: Object(Other.Get())
	{
	}
	template <class OtherType, typename = std::enable_if_t<std::is_convertible_v<OtherType*, ObjectType*>>>
	TSharedPtr(const TSharedRef<OtherType, Mode>& Other)
		: Object(&Other.Get())
	{
	}

	bool IsValid() const { return Object != nullptr; }
	explicit operator bool() const { return Object != nullptr; }
	ObjectType* Get() const { return Object; }
	ObjectType* operator->() const { return Object; }
	ObjectType& operator*() const { return *Object; }
	void Reset() { Object = nullptr; }
	TSharedRef<ObjectType, Mode> ToSharedRef() const { return TSharedRef<ObjectType, Mode>(*Object); }

private:
	template <class, ESPMode>
	friend class TSharedPtr;
	template <class OtherType>
	friend TSharedPtr<OtherType> MakeShareable(OtherType* Object);
	ObjectType* Object = nullptr;
};

template <class ObjectType, ESPMode Mode>
class TSharedRef
{
public:
	TSharedRef(const TSharedRef&) = default;
	TSharedRef& operator=(const TSharedRef&) = default;
	template <class OtherType, typename = std::enable_if_t<std::is_convertible_v<OtherType*, ObjectType*>>>
	TSharedRef(const TSharedRef<OtherType, Mode>& Other)
		: Object(&Other.Get())
	{
	}

	ObjectType& Get() const { return *Object; }
	ObjectType* operator->() const { return Object; }
	ObjectType& operator*() const { return *Object; }
	TSharedPtr<ObjectType, Mode> ToSharedPtr() const { return TSharedPtr<ObjectType, Mode>(*this); }

private:
	template <class, ESPMode>
	friend class TSharedPtr;
	template <class OtherType, ESPMode OtherMode, typename... ArgTypes>
	friend TSharedRef<OtherType, OtherMode> MakeShared(ArgTypes&&... Args);
	explicit TSharedRef(ObjectType& InObject)
		: Object(&InObject)
	{
	}
	ObjectType* Object;
};

template <class ObjectType, ESPMode Mode = ESPMode::ThreadSafe, typename... ArgTypes>
TSharedRef<ObjectType, Mode> MakeShared(ArgTypes&&... Args)
{
	static_assert(std::is_constructible_v<ObjectType, ArgTypes&&...>, "MakeShared: no constructor takes these arguments");
	return TSharedRef<ObjectType, Mode>(*new ObjectType(Forward<ArgTypes>(Args)...));
}

template <class ObjectType>
TSharedPtr<ObjectType> MakeShareable(ObjectType* Object)
{
	TSharedPtr<ObjectType> Result;
	Result.Object = Object;
	return Result;
}
