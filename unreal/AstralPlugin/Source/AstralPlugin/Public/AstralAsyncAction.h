// The base of the Astral async nodes: kept alive until it ends, activated
// once, cancellable.

#pragma once

#include "CoreMinimal.h"
#include "Async/Async.h"
#include "Engine/CancellableAsyncAction.h"
#include "Tasks/Task.h"
#include "UObject/WeakObjectPtrTemplates.h"
#include "AstralAsyncAction.generated.h"

/**
 * An Astral node that runs libastral on a UE::Tasks worker and reports on the
 * game thread, on a later tick. It stays alive until it reports or is
 * cancelled: registered with the game instance when there is one, otherwise
 * (editor utility Blueprints, a null world context) rooted, so garbage
 * collection never ends it early. A second Activate does nothing. Cancel
 * stops the outcome from being reported; libastral's call is not
 * interrupted (an add or save already started still completes). Game thread
 * only, like every UObject node.
 */
UCLASS(Abstract)
class ASTRALPLUGIN_API UAstralAsyncAction : public UCancellableAsyncAction
{
	GENERATED_BODY()

public:
	virtual void Activate() override;
	virtual void Cancel() override;
	virtual bool IsActive() const override;
	virtual bool ShouldBroadcastDelegates() const override;
	virtual void SetReadyToDestroy() override;

	/** True once it reported or was cancelled. */
	bool HasEnded() const { return bEnded; }

protected:
	/** For the factories: keeps the action alive until it ends. */
	void KeepAlive(const UObject* WorldContextObject);

	/** The node's work, started by the first Activate. */
	virtual void Start();

	/**
	 * Runs Work on a worker; the step it returns then runs on the game thread
	 * with this action, unless the action ended first. Work must not touch
	 * this object: it sees only what it captured.
	 */
	template <typename ActionType, typename WorkType>
	void RunOffGameThread(const TCHAR* DebugName, WorkType&& Work)
	{
		static_assert(std::is_base_of_v<UAstralAsyncAction, ActionType>, "an Astral async action");
		TWeakObjectPtr<ActionType> WeakThis(static_cast<ActionType*>(this));
		UE::Tasks::Launch(DebugName, [WeakThis, Work = MoveTemp(Work)]() mutable
		{
			TUniqueFunction<void(ActionType&)> Then = Work();
			AsyncTask(ENamedThreads::GameThread, [WeakThis, Then = MoveTemp(Then)]() mutable
			{
				ActionType* Action = WeakThis.Get();
				if (Action != nullptr && Action->IsActive())
				{
					Then(*Action);
				}
			});
		});
	}

	/** Reports a failure found before any work started (ActionType::Fail), on a later tick as every outcome. */
	template <typename ActionType>
	void FailLater(FString Error)
	{
		TWeakObjectPtr<ActionType> WeakThis(static_cast<ActionType*>(this));
		AsyncTask(ENamedThreads::GameThread, [WeakThis, Error = MoveTemp(Error)]() mutable
		{
			ActionType* Action = WeakThis.Get();
			if (Action != nullptr && Action->IsActive())
			{
				Action->Fail(MoveTemp(Error));
			}
		});
	}

private:
	bool bActivated = false;
	bool bEnded = false;
	bool bRooted = false;
};
