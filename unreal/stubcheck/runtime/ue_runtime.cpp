// The stand-in engine's run time, for the async harness (async_gc_test.cpp):
// definitions of what ue/ declares, small and single-purpose. A game thread
// with a queue, one thread per launched task (held on request), a registry
// of UObjects with a collector, game instances that keep what registers with
// them, IPluginManager over one folder, dlopen for FPlatformProcess. Not
// Unreal code.
#include "CoreMinimal.h"
#include "CoreGlobals.h"
#include "Async/Async.h"
#include "Engine/CancellableAsyncAction.h"
#include "Engine/DeveloperSettings.h"
#include "HAL/FileManager.h"
#include "HAL/PlatformProcess.h"
#include "HAL/PlatformTime.h"
#include "Interfaces/IPluginManager.h"
#include "Misc/Paths.h"
#include "Tasks/Task.h"
#include "UObject/Object.h"
#include "UObject/Package.h"
#include "StubRuntime.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <dlfcn.h>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unistd.h>

namespace
{
	std::thread::id GameThreadId;

	std::mutex QueueMutex;
	std::deque<TUniqueFunction<void()>> GameThreadQueue;

	std::mutex TaskMutex;
	std::condition_variable TaskChanged;
	bool bHoldTasks = false;
	int32 RunningTasks = 0;
	int32 Launched = 0;

	/** Every live UObject: its serial (for weak pointers) and what keeps it. */
	struct FObjectState
	{
		uint64 Serial = 0;
		bool bRooted = false;
		bool bKept = false;
		bool bRegistered = false; // with a game instance
	};
	std::map<const UObject*, FObjectState> Objects;
	std::set<const UObject*> WorldsWithGameInstance;
	uint64 NextSerial = 1;

	FString PluginBaseDir;
	std::mutex LogMutex;
	TArray<FString> LogLines;

	FObjectState& StateOf(const UObject* Object)
	{
		const auto It = Objects.find(Object);
		check(It != Objects.end());
		return It->second;
	}
}

namespace UEStub
{
	void CheckFailed(const char* Expression, const char* File, int Line)
	{
		std::fprintf(stderr, "check failed: %s at %s:%d\n", Expression, File, Line);
		std::abort();
	}

	uint64 ObjectSerial(const UObject* Object)
	{
		const auto It = Objects.find(Object);
		return It == Objects.end() ? 0 : It->second.Serial;
	}

	void LaunchTask(TUniqueFunction<void()> Body)
	{
		{
			std::lock_guard<std::mutex> Lock(TaskMutex);
			RunningTasks++;
			Launched++;
		}
		std::thread([Body = MoveTemp(Body)]() mutable
		{
			{
				std::unique_lock<std::mutex> Lock(TaskMutex);
				TaskChanged.wait(Lock, [] { return !bHoldTasks; });
			}
			Body();
			std::lock_guard<std::mutex> Lock(TaskMutex);
			RunningTasks--;
			TaskChanged.notify_all();
		}).detach();
	}

	void WriteLog(const FLogCategoryBase& Category, ELogVerbosity::Type Verbosity, const FString& Message)
	{
		if (Verbosity > ELogVerbosity::Warning)
		{
			return;
		}
		const TCHAR* Level = Verbosity == ELogVerbosity::Warning ? TEXT("Warning") : TEXT("Error");
		std::lock_guard<std::mutex> Lock(LogMutex);
		LogLines.Add(Category.StubName + TEXT(": ") + Level + TEXT(": ") + Message);
	}
}

namespace UEStub::Runtime
{
	void BecomeGameThread()
	{
		GameThreadId = std::this_thread::get_id();
	}

	int32 Tick()
	{
		std::deque<TUniqueFunction<void()>> Work;
		{
			std::lock_guard<std::mutex> Lock(QueueMutex);
			Work.swap(GameThreadQueue);
		}
		for (TUniqueFunction<void()>& Step : Work)
		{
			Step();
		}
		return static_cast<int32>(Work.size());
	}

	void HoldTasks(bool bHold)
	{
		std::lock_guard<std::mutex> Lock(TaskMutex);
		bHoldTasks = bHold;
		TaskChanged.notify_all();
	}

	void WaitForTasks()
	{
		std::unique_lock<std::mutex> Lock(TaskMutex);
		check(!bHoldTasks);
		TaskChanged.wait(Lock, [] { return RunningTasks == 0; });
	}

	int32 LaunchedTasks()
	{
		std::lock_guard<std::mutex> Lock(TaskMutex);
		return Launched;
	}

	int32 CollectGarbage()
	{
		check(IsInGameThread());
		TArray<UObject*> Garbage;
		for (const auto& [Object, State] : Objects)
		{
			if (!State.bRooted && !State.bKept && !State.bRegistered)
			{
				Garbage.Add(const_cast<UObject*>(Object));
			}
		}
		for (UObject* Object : Garbage)
		{
			Object->BeginDestroy();
		}
		for (UObject* Object : Garbage)
		{
			Object->FinishDestroy();
			delete Object;
		}
		return Garbage.Num();
	}

	void Keep(UObject* Object) { StateOf(Object).bKept = true; }
	void Unkeep(UObject* Object) { StateOf(Object).bKept = false; }
	bool IsAlive(const UObject* Object) { return Objects.count(Object) != 0; }
	bool IsRooted(const UObject* Object) { return IsAlive(Object) && StateOf(Object).bRooted; }
	bool IsRegisteredWithGameInstance(const UObject* Object) { return IsAlive(Object) && StateOf(Object).bRegistered; }

	UObject* NewWorldWithGameInstance()
	{
		UObject* World = NewObject<UPackage>(GetTransientPackage());
		Keep(World);
		WorldsWithGameInstance.insert(World);
		return World;
	}

	void SetPluginBaseDir(const FString& Dir) { PluginBaseDir = Dir; }

	TArray<FString> TakeLog()
	{
		std::lock_guard<std::mutex> Lock(LogMutex);
		TArray<FString> Lines = MoveTemp(LogLines);
		LogLines.Reset();
		return Lines;
	}
}

bool IsInGameThread()
{
	return std::this_thread::get_id() == GameThreadId;
}

void AsyncTask(ENamedThreads::Type Thread, TUniqueFunction<void()> Function)
{
	if (Thread == ENamedThreads::GameThread)
	{
		std::lock_guard<std::mutex> Lock(QueueMutex);
		GameThreadQueue.push_back(MoveTemp(Function));
		return;
	}
	UEStub::LaunchTask(MoveTemp(Function));
}

FLogCategoryBase::FLogCategoryBase(const TCHAR* CategoryName, ELogVerbosity::Type, ELogVerbosity::Type)
	: StubName(CategoryName)
{
}

// Objects

UObject::UObject()
{
	check(IsInGameThread());
	Objects[this].Serial = NextSerial++;
}

UObject::~UObject()
{
	WorldsWithGameInstance.erase(this);
	Objects.erase(this);
}

void UObject::PostInitProperties() {}
void UObject::BeginDestroy() {}
void UObject::FinishDestroy() {}
UWorld* UObject::GetWorld() const { return nullptr; }
UObject* UObject::GetOuter() const { return nullptr; }
FString UObject::GetName() const { return FString::Printf(TEXT("Object_%llu"), static_cast<uint64>(StateOf(this).Serial)); }
// Objects here all live in the transient package, as the plugin's do.
FString UObject::GetPathName(const UObject* StopOuter) const
{
	(void)StopOuter;
	return FString(TEXT("/Engine/Transient.")) + GetName();
}
bool UObject::IsValidLowLevel() const { return UEStub::Runtime::IsAlive(this); }
void UObject::AddToRoot() { StateOf(this).bRooted = true; }
void UObject::RemoveFromRoot() { StateOf(this).bRooted = false; }

UPackage* GetTransientPackage()
{
	static UPackage* Package = []
	{
		UPackage* P = new UPackage();
		P->AddToRoot();
		return P;
	}();
	return Package;
}

FName UDeveloperSettings::GetContainerName() const { return FName(TEXT("Project")); }
FName UDeveloperSettings::GetCategoryName() const { return FName(TEXT("Game")); }
FName UDeveloperSettings::GetSectionName() const { return FName(TEXT("Section")); }

// The engine's async action bases, as UE 5.x behaves: registering with a
// game instance keeps the action referenced until SetReadyToDestroy; the
// cancellable action broadcasts only while registered, unless overridden.

void UBlueprintAsyncActionBase::Activate() {}

void UBlueprintAsyncActionBase::RegisterWithGameInstance(const UObject* WorldContextObject)
{
	if (WorldContextObject != nullptr && WorldsWithGameInstance.count(WorldContextObject) != 0)
	{
		RegisterWithGameInstance(static_cast<UGameInstance*>(nullptr));
	}
}

void UBlueprintAsyncActionBase::RegisterWithGameInstance(UGameInstance*)
{
	StateOf(this).bRegistered = true;
}

void UBlueprintAsyncActionBase::SetReadyToDestroy()
{
	StateOf(this).bRegistered = false;
}

void UCancellableAsyncAction::Cancel() { SetReadyToDestroy(); }
bool UCancellableAsyncAction::IsActive() const { return ShouldBroadcastDelegates(); }
bool UCancellableAsyncAction::ShouldBroadcastDelegates() const { return IsRegistered(); }
bool UCancellableAsyncAction::IsRegistered() const { return StateOf(this).bRegistered; }
FTimerManager* UCancellableAsyncAction::GetTimerManager() const { return nullptr; }

// Plugins, files, libraries

namespace
{
	class FStubPlugin : public IPlugin
	{
	public:
		const FString& GetName() const override
		{
			static const FString Name(TEXT("AstralPlugin"));
			return Name;
		}
		FString GetBaseDir() const override { return PluginBaseDir; }
		FString GetContentDir() const override { return PluginBaseDir + TEXT("/Content"); }
	};

	class FStubPluginManager : public IPluginManager
	{
	public:
		TSharedPtr<IPlugin> FindPlugin(const FStringView Name) override
		{
			return FString(Name.GetData()) == TEXT("AstralPlugin") ? MakeShareable<IPlugin>(new FStubPlugin()) : nullptr;
		}
		TSharedPtr<IPlugin> FindPlugin(const ANSICHAR* Name) override
		{
			return FindPlugin(FStringView(UTF8_TO_TCHAR(Name)));
		}
	};

	class FStubFileManager : public IFileManager
	{
	public:
		bool MakeDirectory(const TCHAR* Path, bool Tree) override
		{
			std::error_code Error;
			const std::filesystem::path Dir(TCHAR_TO_UTF8(Path));
			if (Tree)
			{
				std::filesystem::create_directories(Dir, Error);
			}
			else
			{
				std::filesystem::create_directory(Dir, Error);
			}
			return std::filesystem::is_directory(Dir);
		}
	};
}

IPluginManager& IPluginManager::Get()
{
	static FStubPluginManager Manager;
	return Manager;
}

IFileManager& IFileManager::Get()
{
	static FStubFileManager Manager;
	return Manager;
}

void* FPlatformProcess::GetDllHandle(const TCHAR* Filename)
{
	return dlopen(TCHAR_TO_UTF8(Filename), RTLD_NOW | RTLD_LOCAL);
}

void FPlatformProcess::FreeDllHandle(void* DllHandle)
{
	dlclose(DllHandle);
}

void* FPlatformProcess::GetDllExport(void* DllHandle, const TCHAR* ProcName)
{
	return dlsym(DllHandle, TCHAR_TO_UTF8(ProcName));
}

double FPlatformTime::Seconds()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

uint32 FPlatformTime::Cycles()
{
	return static_cast<uint32>(std::chrono::steady_clock::now().time_since_epoch().count());
}

FString FPaths::ConvertRelativePathToFull(const FString& InPath)
{
	return FString(UTF8_TO_TCHAR(std::filesystem::absolute(std::filesystem::path(TCHAR_TO_UTF8(*InPath))).lexically_normal().generic_string().c_str()));
}

bool FPaths::FileExists(const FString& InPath)
{
	std::error_code Ignored;
	return std::filesystem::is_regular_file(std::filesystem::path(TCHAR_TO_UTF8(*InPath)), Ignored);
}

const FString& FPaths::ProjectSavedDir()
{
	// A fresh folder per run, as a project's Saved/.
	static const FString Dir = []
	{
		const std::filesystem::path P = std::filesystem::temp_directory_path() / ("astral-async-gc-" + std::to_string(getpid())) / "Saved";
		std::filesystem::create_directories(P);
		return FString(UTF8_TO_TCHAR((P.generic_string() + "/").c_str()));
	}();
	return Dir;
}

FString FPaths::GetPath(const FString& InPath)
{
	return FString(UTF8_TO_TCHAR(std::filesystem::path(TCHAR_TO_UTF8(*InPath)).parent_path().generic_string().c_str()));
}

bool FPaths::IsRelative(const FString& InPath)
{
	return std::filesystem::path(TCHAR_TO_UTF8(*InPath)).is_relative();
}
