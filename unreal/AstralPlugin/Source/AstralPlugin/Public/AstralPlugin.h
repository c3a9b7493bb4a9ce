// Astral: vector memory for games. The runtime module.

#pragma once

#include "CoreMinimal.h"
#include "Modules/ModuleInterface.h"

ASTRALPLUGIN_API DECLARE_LOG_CATEGORY_EXTERN(LogAstral, Log, All);

/**
 * Loads libastral when the module starts, fills the function table every
 * Astral call goes through and starts the library's runtime with the
 * worker settings of UAstralSettings; stops the runtime when the module
 * shuts down. The library itself is never unloaded: a Go runtime cannot be.
 */
class FAstralPluginModule : public IModuleInterface
{
public:
	virtual void StartupModule() override;
	virtual void ShutdownModule() override;

private:
	/** Loads the library and starts its runtime; false with the reason logged. */
	bool StartAstral();

	/** From FPlatformProcess::GetDllHandle; deliberately never freed. */
	void* LibraryHandle = nullptr;
	bool bRuntimeStarted = false;
};
