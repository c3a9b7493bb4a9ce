// Stand-in for UObject/UObjectGlobals.h: object creation and class defaults.
#pragma once

#include "CoreMinimal.h"
#include "UObject/ObjectMacros.h"

class UObject;
class UPackage;

UPackage* GetTransientPackage();

template <class T>
T* NewObject(UObject* Outer, FName Name = NAME_None, EObjectFlags Flags = RF_NoFlags)
{
	static_assert(std::is_base_of_v<UObject, T>, "NewObject makes UObjects");
	(void)Outer;
	(void)Name;
	(void)Flags;
	return new T();
}

template <class T>
T* GetMutableDefault()
{
	static_assert(std::is_base_of_v<UObject, T>, "GetMutableDefault reads a UClass's default object");
	// The class default object: made once, never collected.
	static T* Default = []
	{
		T* Object = new T();
		Object->AddToRoot();
		return Object;
	}();
	return Default;
}

template <class T>
const T* GetDefault()
{
	static_assert(std::is_base_of_v<UObject, T>, "GetDefault reads a UClass's default object");
	return GetMutableDefault<T>();
}
