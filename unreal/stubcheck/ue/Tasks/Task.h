// Stand-in for UE::Tasks (Tasks/Task.h): Launch takes a debug name and a
// callable with no parameters (move-only ones too) and returns a TTask of
// its result.
#pragma once

#include "CoreMinimal.h"

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
		TTask();
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
		(void)TaskBody;
		(void)Priority;
		(void)ExtendedPriority;
		(void)Flags;
		return {};
	}
}
