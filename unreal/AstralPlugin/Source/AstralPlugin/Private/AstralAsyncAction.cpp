#include "AstralAsyncAction.h"

#include "AstralPlugin.h"
#include "CoreGlobals.h"

void UAstralAsyncAction::KeepAlive(const UObject* WorldContextObject)
{
	// A null context would only log a warning; one without a game instance
	// (an editor world) registers nothing.
	if (WorldContextObject != nullptr)
	{
		RegisterWithGameInstance(WorldContextObject);
	}
	if (!IsRegistered())
	{
		// Nothing else holds the action between the node's exec pins and the
		// outcome: without this a collection in between would end it silently.
		AddToRoot();
		bRooted = true;
	}
}

void UAstralAsyncAction::Activate()
{
	check(IsInGameThread());
	if (bActivated)
	{
		UE_LOG(LogAstral, Warning, TEXT("Astral: %s activated twice; the second Activate does nothing"), *GetName());
		return;
	}
	bActivated = true;
	if (!bEnded)
	{
		Start();
	}
}

void UAstralAsyncAction::Start()
{
	// Only the abstract class's default object could get here.
	SetReadyToDestroy();
}

void UAstralAsyncAction::Cancel()
{
	bEnded = true;
	Super::Cancel();
}

bool UAstralAsyncAction::IsActive() const
{
	return bActivated && !bEnded;
}

bool UAstralAsyncAction::ShouldBroadcastDelegates() const
{
	// The engine's default asks for a game instance, which a rooted action lacks.
	return !bEnded;
}

void UAstralAsyncAction::SetReadyToDestroy()
{
	bEnded = true;
	if (bRooted)
	{
		RemoveFromRoot();
		bRooted = false;
	}
	Super::SetReadyToDestroy();
}
