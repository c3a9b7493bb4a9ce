// Stand-in for Modules/ModuleManager.h: IMPLEMENT_MODULE makes the module's
// entry point, which needs a concrete IModuleInterface.
#pragma once

#include "CoreMinimal.h"
#include "Modules/ModuleInterface.h"

#define IMPLEMENT_MODULE(ModuleImplClass, ModuleName) \
	static_assert(std::is_base_of_v<IModuleInterface, ModuleImplClass>, "a module implements IModuleInterface"); \
	extern "C" DLLEXPORT IModuleInterface* InitializeModule() \
	{ \
		return new ModuleImplClass(); \
	} \
	extern "C" void IMPLEMENT_MODULE_##ModuleName() {}
