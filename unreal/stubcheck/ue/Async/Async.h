// Stand-in for AsyncTask (Async/Async.h): runs a function on a named thread.
#pragma once

#include "CoreMinimal.h"
#include "Async/TaskGraphInterfaces.h"
#include "Templates/Function.h"

void AsyncTask(ENamedThreads::Type Thread, TUniqueFunction<void()> Function);
