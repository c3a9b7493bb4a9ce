// Breaks task-capture: task lambdas that capture this, and everything.
#include "BadTaskCapture.h"

#include "Tasks/Task.h"

void UCapturingAction::Activate()
{
	UE::Tasks::Launch(TEXT("CapturesThis"), [this]() { Results.Reset(); }); // expect: task-capture
	UE::Tasks::Launch(TEXT("CapturesAll"), [=]() mutable { Results.Reset(); }); // expect: task-capture
}
