// Breaks blueprint-type: parameters, a return value, a property and a
// delegate parameter that Blueprint has no type for.
#pragma once

#include "CoreMinimal.h"
#include "Kismet/BlueprintFunctionLibrary.h"
#include "BadTypes.generated.h"

struct FPlainStruct
{
	int32 Value = 0;
};

DECLARE_DYNAMIC_MULTICAST_DELEGATE_OneParam(FBadDelegate, uint32, Count); // expect: blueprint-type

USTRUCT(BlueprintType)
struct FBadProperties
{
	GENERATED_BODY()

	UPROPERTY(BlueprintReadOnly, Category = "Bad") // expect: blueprint-type
	uint16 Small = 0;
};

UCLASS()
class UBadTypesLibrary : public UBlueprintFunctionLibrary
{
	GENERATED_BODY()

public:
	UFUNCTION(BlueprintCallable, Category = "Bad") // expect: blueprint-type
	static bool TakesUint64(const TArray<uint64>& Ids);

	UFUNCTION(BlueprintCallable, Category = "Bad") // expect: blueprint-type
	static bool TakesSizeT(size_t Count);

	UFUNCTION(BlueprintCallable, Category = "Bad") // expect: blueprint-type
	static bool TakesPlainStruct(const FPlainStruct& Value);

	UFUNCTION(BlueprintCallable, Category = "Bad") // expect: blueprint-type
	static bool TakesSharedPtr(TSharedPtr<FPlainStruct> Value);

	UFUNCTION(BlueprintPure, Category = "Bad") // expect: blueprint-type
	static std::string ReturnsStd();

	UFUNCTION(BlueprintCallable, Category = "Bad") // expect: blueprint-type
	static void TakesRawPointer(float* Values);
};
