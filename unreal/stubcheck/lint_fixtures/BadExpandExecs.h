// Breaks expand-execs: exec pins expanded from what is not a bool or UENUM,
// or from a parameter the function does not have.
#pragma once

#include "CoreMinimal.h"
#include "Kismet/BlueprintFunctionLibrary.h"
#include "BadExpandExecs.generated.h"

UENUM(BlueprintType)
enum class EExpandOutcome : uint8
{
	Done,
	Failed,
};

UCLASS()
class UExpandLibrary : public UBlueprintFunctionLibrary
{
	GENERATED_BODY()

public:
	UFUNCTION(BlueprintCallable, Category = "Bad", meta = (ExpandBoolAsExecs = "ReturnValue")) // expect: expand-execs
	static int32 CountAsExecs();

	UFUNCTION(BlueprintCallable, Category = "Bad", meta = (ExpandBoolAsExecs = "ReturnValue")) // expect: expand-execs
	static void NothingReturned();

	UFUNCTION(BlueprintCallable, Category = "Bad", meta = (ExpandBoolAsExecs = "bDone")) // expect: expand-execs
	static void MissingParameter(bool& bFinished);

	UFUNCTION(BlueprintCallable, Category = "Bad", meta = (ExpandEnumAsExecs = "Outcome")) // expect: expand-execs
	static void NotAnEnum(FString& Outcome);

	UFUNCTION(BlueprintCallable, Category = "Bad", meta = (ExpandBoolAsExecs = "Outcome")) // expect: expand-execs
	static void EnumAsBool(EExpandOutcome& Outcome);

	UFUNCTION(BlueprintCallable, Category = "Bad", meta = (ExpandEnumAsExecs = "ReturnValue")) // expect: expand-execs
	static FString TextAsExecs();

	UFUNCTION(BlueprintCallable, Category = "Bad", meta = (ExpandEnumAsExecs = "Outcome"))
	static void EnumOutcome(EExpandOutcome& Outcome);

	UFUNCTION(BlueprintCallable, Category = "Bad", meta = (ExpandEnumAsExecs = "ReturnValue", Keywords = "fine"))
	static EExpandOutcome EnumReturned(int32 Value, FString& Error);
};
