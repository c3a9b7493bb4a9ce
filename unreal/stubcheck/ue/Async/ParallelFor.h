// Stand-in for ParallelFor (Async/ParallelFor.h).
#pragma once

#include "CoreMinimal.h"
#include "Templates/Function.h"

enum class EParallelForFlags
{
	None = 0,
	ForceSingleThread = 1,
	Unbalanced = 2,
	PumpRenderingThread = 4,
	BackgroundPriority = 8,
};

void ParallelFor(int32 Num, TFunctionRef<void(int32)> Body, EParallelForFlags Flags = EParallelForFlags::None);
