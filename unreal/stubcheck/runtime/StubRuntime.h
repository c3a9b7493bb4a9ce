// What the async harness drives in the stand-in engine (ue_runtime.cpp): the
// game thread's queue, the task threads, and a garbage collector over the
// UObjects NewObject made. Not Unreal code.
#pragma once

#include "CoreMinimal.h"

class UObject;

namespace UEStub::Runtime
{
	/** The calling thread becomes the game thread. */
	void BecomeGameThread();
	/** Runs the game-thread work queued so far (AsyncTask to GameThread): one tick. Returns how many ran. */
	int32 Tick();
	/** While held, launched tasks wait to start: a query is then certainly in flight. */
	void HoldTasks(bool bHold);
	/** Waits until every launched task has ended. */
	void WaitForTasks();
	/** Tasks launched so far. */
	int32 LaunchedTasks();

	/**
	 * As the engine's collection: every object neither rooted, nor registered
	 * with a game instance, nor kept by the harness (a Blueprint variable)
	 * gets BeginDestroy and FinishDestroy and is deleted. Returns how many.
	 */
	int32 CollectGarbage();
	void Keep(UObject* Object);
	void Unkeep(UObject* Object);
	bool IsAlive(const UObject* Object);
	bool IsRooted(const UObject* Object);
	bool IsRegisteredWithGameInstance(const UObject* Object);
	/** A world context object whose world has a game instance (kept). */
	UObject* NewWorldWithGameInstance();

	/** Where IPluginManager finds the plugin named AstralPlugin. */
	void SetPluginBaseDir(const FString& Dir);
	/** The warnings and errors logged so far, "Category: message" each. */
	TArray<FString> TakeLog();
}
