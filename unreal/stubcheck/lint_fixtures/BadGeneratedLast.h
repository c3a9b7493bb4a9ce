// Breaks generated-last: the generated header misnamed and not last.
#pragma once

#include "CoreMinimal.h"
#include "UObject/Object.h"
#include "SomethingElse.generated.h" // expect: generated-last
#include "Templates/SharedPointer.h" // expect: generated-last

UCLASS()
class UIncludedTooEarly : public UObject
{
	GENERATED_BODY()
};
