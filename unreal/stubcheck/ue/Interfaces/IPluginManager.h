// Stand-in for IPlugin and IPluginManager (Projects module).
#pragma once

#include "CoreMinimal.h"

class IPlugin
{
public:
	virtual ~IPlugin() {}
	virtual const FString& GetName() const = 0;
	virtual FString GetBaseDir() const = 0;
	virtual FString GetContentDir() const = 0;
};

class IPluginManager
{
public:
	virtual ~IPluginManager() {}
	static IPluginManager& Get();
	virtual TSharedPtr<IPlugin> FindPlugin(const FStringView Name) = 0;
	virtual TSharedPtr<IPlugin> FindPlugin(const ANSICHAR* Name) = 0;
};
