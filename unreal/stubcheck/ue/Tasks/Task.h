// Stand-in for UE::Tasks (Tasks/Task.h): Launch takes a debug name and a
// callable with no parameters (move-only ones too) and returns a TTask of
// its result.
#pragma once

#include "CoreMinimal.h"
#include "Templates/Function.h"

namespace UEStub
{
	/** Runs Body on a task thread (ue_runtime.cpp, for the async harness). */
	void LaunchTask(TUniqueFunction<void()> Body);
}

namespace UE::Tasks
{
	enum class ETaskPriority : int8
	{
		High,
		Normal,
		Default = Normal,
		BackgroundHigh,
		BackgroundNormal,
		BackgroundLow,
	};

	enum class EExtendedTaskPriority : int8
	{
		None,
		Inline,
		TaskEvent,
	};

	enum class ETaskFlags
	{
		None,
		DoNotRunInsideBusyWait,
	};

	template <typename ResultType>
	class TTask
	{
	public:
		TTask() {}
		bool IsValid() const;
		bool IsCompleted() const;
		bool Wait() const;
		std::add_lvalue_reference_t<ResultType> GetResult();
	};

	template <typename TaskBodyType>
	TTask<std::invoke_result_t<std::decay_t<TaskBodyType>&>> Launch(const TCHAR* DebugName, TaskBodyType&& TaskBody,
		ETaskPriority Priority = ETaskPriority::Normal, EExtendedTaskPriority ExtendedPriority = EExtendedTaskPriority::None,
		ETaskFlags Flags = ETaskFlags::None)
	{
		static_assert(std::is_constructible_v<std::decay_t<TaskBodyType>, TaskBodyType&&>, "the task keeps its own copy of the body");
		(void)DebugName;
		(void)Priority;
		(void)ExtendedPriority;
		(void)Flags;
		UEStub::LaunchTask([Body = std::decay_t<TaskBodyType>(Forward<TaskBodyType>(TaskBody))]() mutable
		{
			(void)Body();
		});
		return {};
	}
}
