// The stand-ins' signatures against the engine's documented ones
// (dev.epicgames.com/documentation/unreal-engine/API/..., UE 5.x): a stand-in
// that drifts from the engine (a reference where Unreal returns a value, a
// missing const, another parameter type) fails to compile here. Each line
// names the API page it was read from. Compiled by compile.sh with every
// compiler; not part of the plugin.
#include "CoreMinimal.h"
#include "CoreGlobals.h"
#include "Engine/CancellableAsyncAction.h"
#include "GameplayTagContainer.h"
#include "HAL/FileManager.h"
#include "HAL/PlatformProcess.h"
#include "HAL/PlatformTime.h"
#include "Interfaces/IPluginManager.h"
#include "Kismet/BlueprintAsyncActionBase.h"
#include "Misc/CommandLine.h"
#include "Misc/FileHelper.h"
#include "Misc/Paths.h"
#include "Misc/ScopeLock.h"
#include "Modules/ModuleInterface.h"
#include "UObject/Object.h"

#include <type_traits>

// Selecting an overload by its exact type compiles only if one has that type.
#define ASTRAL_SIGNATURE(Type, Function) static_assert(std::is_same_v<decltype(static_cast<Type>(&Function)), Type>, #Function)

// Runtime/Projects/Interfaces/IPlugin/GetBaseDir: FString GetBaseDir() const
ASTRAL_SIGNATURE(FString (IPlugin::*)() const, IPlugin::GetBaseDir);
// Runtime/Projects/Interfaces/IPlugin/GetName: const FString& GetName() const
ASTRAL_SIGNATURE(const FString& (IPlugin::*)() const, IPlugin::GetName);
// Runtime/Projects/Interfaces/IPluginManager/Get: static IPluginManager& Get()
ASTRAL_SIGNATURE(IPluginManager& (*)(), IPluginManager::Get);
// Runtime/Projects/Interfaces/IPluginManager/FindPlugin: TSharedPtr<IPlugin> FindPlugin(const FStringView Name)
ASTRAL_SIGNATURE(TSharedPtr<IPlugin> (IPluginManager::*)(const FStringView), IPluginManager::FindPlugin);
// Runtime/Core/GenericPlatform/FGenericPlatformProcess/GetDllHandle: static void* GetDllHandle(const TCHAR* Filename)
ASTRAL_SIGNATURE(void* (*)(const TCHAR*), FPlatformProcess::GetDllHandle);
// .../FGenericPlatformProcess/GetDllExport: static void* GetDllExport(void* DllHandle, const TCHAR* ProcName)
ASTRAL_SIGNATURE(void* (*)(void*, const TCHAR*), FPlatformProcess::GetDllExport);
// .../FGenericPlatformProcess/FreeDllHandle: static void FreeDllHandle(void* DllHandle)
ASTRAL_SIGNATURE(void (*)(void*), FPlatformProcess::FreeDllHandle);
// Runtime/Core/Misc/FPaths/ProjectSavedDir: static const FString& ProjectSavedDir()
ASTRAL_SIGNATURE(const FString& (*)(), FPaths::ProjectSavedDir);
// Runtime/Core/Misc/FPaths/ConvertRelativePathToFull: static FString ConvertRelativePathToFull(const FString& InPath)
ASTRAL_SIGNATURE(FString (*)(const FString&), FPaths::ConvertRelativePathToFull);
// Runtime/Core/Misc/FPaths/FileExists: static bool FileExists(const FString& InPath)
ASTRAL_SIGNATURE(bool (*)(const FString&), FPaths::FileExists);
// Runtime/Core/Misc/FPaths/GetPath: static FString GetPath(const FString& InPath)
ASTRAL_SIGNATURE(FString (*)(const FString&), FPaths::GetPath);
// Runtime/Core/Misc/FPaths/IsRelative: static bool IsRelative(const FString& InPath)
ASTRAL_SIGNATURE(bool (*)(const FString&), FPaths::IsRelative);
// Runtime/Core/HAL/IFileManager/Get: static IFileManager& Get()
ASTRAL_SIGNATURE(IFileManager& (*)(), IFileManager::Get);
// Runtime/Core/HAL/IFileManager/MakeDirectory: bool MakeDirectory(const TCHAR* Path, bool Tree)
ASTRAL_SIGNATURE(bool (IFileManager::*)(const TCHAR*, bool), IFileManager::MakeDirectory);
// Runtime/Core/GenericPlatform/FGenericPlatformTime/Seconds: static double Seconds()
ASTRAL_SIGNATURE(double (*)(), FPlatformTime::Seconds);
// Runtime/Core/GenericPlatform/FGenericPlatformMath/Pow: static double Pow(double A, double B)
ASTRAL_SIGNATURE(double (*)(double, double), FMath::Pow);
// Runtime/Core/HAL/FMemory/Memcmp: static int32 Memcmp(const void* Buf1, const void* Buf2, SIZE_T Count)
ASTRAL_SIGNATURE(int32 (*)(const void*, const void*, SIZE_T), FMemory::Memcmp);
// Runtime/Core/IsInGameThread: bool IsInGameThread()
ASTRAL_SIGNATURE(bool (*)(), IsInGameThread);
// Runtime/Core/Misc/FCommandLine/Get: static const TCHAR* Get()
ASTRAL_SIGNATURE(const TCHAR* (*)(), FCommandLine::Get);
// Runtime/Core/Misc/FFileHelper/LoadFileToArray: static bool LoadFileToArray(TArray<uint8>& Result, const TCHAR* Filename, uint32 Flags)
ASTRAL_SIGNATURE(bool (*)(TArray<uint8>&, const TCHAR*, uint32), FFileHelper::LoadFileToArray);
// Runtime/Core/Modules/IModuleInterface/StartupModule, ShutdownModule: virtual void ...()
ASTRAL_SIGNATURE(void (IModuleInterface::*)(), IModuleInterface::StartupModule);
ASTRAL_SIGNATURE(void (IModuleInterface::*)(), IModuleInterface::ShutdownModule);
// Runtime/CoreUObject/UObject/UObjectBaseUtility/AddToRoot, RemoveFromRoot: void ...()
ASTRAL_SIGNATURE(void (UObject::*)(), UObject::AddToRoot);
ASTRAL_SIGNATURE(void (UObject::*)(), UObject::RemoveFromRoot);
// Runtime/CoreUObject/UObject/UObject/BeginDestroy: virtual void BeginDestroy()
ASTRAL_SIGNATURE(void (UObject::*)(), UObject::BeginDestroy);
// Runtime/Engine/Kismet/UBlueprintAsyncActionBase: virtual void Activate(),
// RegisterWithGameInstance(const UObject* WorldContextObject), SetReadyToDestroy()
ASTRAL_SIGNATURE(void (UBlueprintAsyncActionBase::*)(), UBlueprintAsyncActionBase::Activate);
ASTRAL_SIGNATURE(void (UBlueprintAsyncActionBase::*)(const UObject*), UBlueprintAsyncActionBase::RegisterWithGameInstance);
ASTRAL_SIGNATURE(void (UBlueprintAsyncActionBase::*)(), UBlueprintAsyncActionBase::SetReadyToDestroy);
// Runtime/Engine/UCancellableAsyncAction: virtual void Cancel(), virtual bool
// IsActive() const, virtual bool ShouldBroadcastDelegates() const, bool IsRegistered() const
ASTRAL_SIGNATURE(void (UCancellableAsyncAction::*)(), UCancellableAsyncAction::Cancel);
ASTRAL_SIGNATURE(bool (UCancellableAsyncAction::*)() const, UCancellableAsyncAction::IsActive);
ASTRAL_SIGNATURE(bool (UCancellableAsyncAction::*)() const, UCancellableAsyncAction::ShouldBroadcastDelegates);
ASTRAL_SIGNATURE(bool (UCancellableAsyncAction::*)() const, UCancellableAsyncAction::IsRegistered);
static_assert(std::is_base_of_v<UBlueprintAsyncActionBase, UCancellableAsyncAction>, "UCancellableAsyncAction : UBlueprintAsyncActionBase");
// Runtime/GameplayTags/FGameplayTag/RequestGameplayTag: static FGameplayTag RequestGameplayTag(const FName& TagName, bool ErrorIfNotFound)
ASTRAL_SIGNATURE(FGameplayTag (*)(const FName&, bool), FGameplayTag::RequestGameplayTag);
// Runtime/GameplayTags/FGameplayTag/GetTagName: const FName& GetTagName() const
ASTRAL_SIGNATURE(const FName& (FGameplayTag::*)() const, FGameplayTag::GetTagName);
// Runtime/GameplayTags/FGameplayTagContainer/Num: int32 Num() const; GetByIndex: FGameplayTag GetByIndex(int32 Index) const;
// AddTag: void AddTag(const FGameplayTag& TagToAdd)
ASTRAL_SIGNATURE(int32 (FGameplayTagContainer::*)() const, FGameplayTagContainer::Num);
ASTRAL_SIGNATURE(FGameplayTag (FGameplayTagContainer::*)(int32) const, FGameplayTagContainer::GetByIndex);
ASTRAL_SIGNATURE(void (FGameplayTagContainer::*)(const FGameplayTag&), FGameplayTagContainer::AddTag);
// Runtime/Core/UObject/FName/ToString: FString ToString() const
ASTRAL_SIGNATURE(FString (FName::*)() const, FName::ToString);
// Runtime/CoreUObject/UObject/UObjectBaseUtility/GetPathName: FString GetPathName(const UObject* StopOuter) const
ASTRAL_SIGNATURE(FString (UObject::*)(const UObject*) const, UObject::GetPathName);
// Runtime/Core/Containers/FString/StartsWith: bool StartsWith(const FString& InPrefix, ESearchCase::Type SearchCase) const
ASTRAL_SIGNATURE(bool (FString::*)(const FString&, ESearchCase::Type) const, FString::StartsWith);
// Runtime/Core/HAL/FMemory/Memcpy: static void* Memcpy(void* Dest, const void* Src, SIZE_T Count)
ASTRAL_SIGNATURE(void* (*)(void*, const void*, SIZE_T), FMemory::Memcpy);
// Runtime/Core/Containers/TArray/Append: void Append(const ElementType* Ptr, SizeType Count)
ASTRAL_SIGNATURE(void (TArray<uint8>::*)(const uint8*, int32), TArray<uint8>::Append);
// Runtime/Core/Misc/FScopeLock: explicit FScopeLock(FCriticalSection* InSynchObject)
static_assert(std::is_constructible_v<FScopeLock, FCriticalSection*> && !std::is_convertible_v<FCriticalSection*, FScopeLock>, "explicit FScopeLock(FCriticalSection*)");
// Runtime/Core/Containers/TStringConversion: FUTF8ToTCHAR(const ANSICHAR* Source, int32 SourceLen)
static_assert(std::is_constructible_v<FUTF8ToTCHAR, const ANSICHAR*, int32>, "FUTF8ToTCHAR(const ANSICHAR*, int32)");
