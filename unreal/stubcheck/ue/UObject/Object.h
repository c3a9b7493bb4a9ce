// Stand-in for UObject (UObject/Object.h).
//
// Unreal's generated code gives each UCLASS a Super typedef naming its direct
// base. GENERATED_BODY() is empty here, so each stand-in base class names
// itself Super instead: inside a class derived directly from it, Super then
// means that base, as it does in Unreal.
#pragma once

#include "CoreMinimal.h"
#include "UObject/ObjectMacros.h"
#include "UObject/UObjectGlobals.h"

class UClass;
class UWorld;

class UObject
{
public:
	using Super = UObject;
	UObject();
	virtual ~UObject();
	virtual void PostInitProperties();
	virtual void BeginDestroy();
	virtual void FinishDestroy();
	virtual UWorld* GetWorld() const;
	UObject* GetOuter() const;
	FString GetName() const;
	FString GetPathName(const UObject* StopOuter = nullptr) const;
	bool IsValidLowLevel() const;
	void AddToRoot();
	void RemoveFromRoot();
};
