// Breaks generated-body: a USTRUCT without GENERATED_BODY().
#pragma once

#include "CoreMinimal.h"
#include "BadGeneratedBody.generated.h"

USTRUCT(BlueprintType) // expect: generated-body
struct FNoBody
{
	UPROPERTY(BlueprintReadOnly, Category = "Bad")
	int32 Value = 0;
};
