#include "AstralPlugin.h"

#include "AstralApi.h"
#include "AstralSettings.h"
#include "HAL/PlatformProcess.h"
#include "Interfaces/IPluginManager.h"
#include "Misc/Paths.h"
#include "Modules/ModuleManager.h"

DEFINE_LOG_CATEGORY(LogAstral);

void FAstralPluginModule::StartupModule()
{
	if (!StartAstral())
	{
		UE_LOG(LogAstral, Error, TEXT("Astral is unavailable: every Astral node will fail with a message"));
	}
}

bool FAstralPluginModule::StartAstral()
{
#ifdef ASTRAL_LIBRARY_PATH
	const TSharedPtr<IPlugin> Plugin = IPluginManager::Get().FindPlugin(TEXT("AstralPlugin"));
	if (!Plugin.IsValid())
	{
		UE_LOG(LogAstral, Error, TEXT("No plugin named AstralPlugin: was AstralPlugin.uplugin renamed?"));
		return false;
	}
	// Staged by AstralLibrary.Build.cs at the same place in packaged games.
	const FString LibraryPath = FPaths::Combine(Plugin->GetBaseDir(), TEXT(ASTRAL_LIBRARY_PATH));

	// A second start-up in one process (the module reloaded) finds the
	// library still loaded: it is never freed.
	if (LibraryHandle == nullptr)
	{
		LibraryHandle = FPlatformProcess::GetDllHandle(*LibraryPath);
	}
	if (LibraryHandle == nullptr)
	{
		UE_LOG(LogAstral, Error, TEXT("Could not load %s; build and stage it with Scripts/build_libastral.sh"), *LibraryPath);
		return false;
	}

	FString Missing;
	if (!UE::Astral::LoadApi(LibraryHandle, Missing))
	{
		UE_LOG(LogAstral, Error, TEXT("%s lacks %s: not a libastral this plugin can use"), *LibraryPath, *Missing);
		return false;
	}

	const uint32 Version = UE::Astral::GApi.astral_version_number();
	if (!ASTRAL_VERSION_COMPATIBLE(Version))
	{
		UE_LOG(LogAstral, Error, TEXT("%s is version %u; this plugin was built for %s (same major version, at least as new)"),
			*LibraryPath, Version, TEXT(ASTRAL_VERSION_STRING));
		return false;
	}

	const UAstralSettings* Settings = GetDefault<UAstralSettings>();
	check(Settings != nullptr);
	AstralInit Init = astral::init_defaults();
	Init.thread_count = Settings->WorkerCount;
	Init.max_procs = static_cast<uint32>(FMath::Max(0, Settings->MaxGoProcs));
	if (Settings->bPinWorkers)
	{
#if PLATFORM_LINUX
		Init.flags |= ASTRAL_INIT_PIN_THREADS;
		Init.cpu_count = static_cast<uint32>(Settings->PinnedCpus.Num());
		Init.cpus = Settings->PinnedCpus.Num() > 0 ? Settings->PinnedCpus.GetData() : nullptr;
#else
		UE_LOG(LogAstral, Warning, TEXT("Pin Workers works on Linux only; ignored here"));
#endif
	}

	const astral::Status Status = astral::init(Init);
	if (!Status)
	{
		UE_LOG(LogAstral, Error, TEXT("%s"), *UE::Astral::DescribeFailure(TEXT("init"), Status.code()));
		return false;
	}
	bRuntimeStarted = true;
	UE::Astral::SetAvailable(true);
	UE_LOG(LogAstral, Log, TEXT("Astral %s loaded from %s; worker setting %d (plus the calling thread), Go max procs %d (0 = default)"),
		TEXT(ASTRAL_VERSION_STRING), *LibraryPath, Settings->WorkerCount, Settings->MaxGoProcs);
	return true;
#else
	UE_LOG(LogAstral, Error, TEXT("AstralLibrary.Build.cs stages no libastral for this platform"));
	return false;
#endif
}

void FAstralPluginModule::ShutdownModule()
{
	if (bRuntimeStarted)
	{
		UE::Astral::SetAvailable(false);
		// Destroys the indexes still alive: UAstralIndex objects collected later
		// release stale handles, which fails cleanly through the table.
		const astral::Status Status = astral::shutdown();
		if (!Status)
		{
			UE_LOG(LogAstral, Warning, TEXT("%s"), *UE::Astral::DescribeFailure(TEXT("shutdown"), Status.code()));
		}
		bRuntimeStarted = false;
	}
	// LibraryHandle stays loaded on purpose: a Go runtime cannot be unloaded.
}

IMPLEMENT_MODULE(FAstralPluginModule, AstralPlugin)
