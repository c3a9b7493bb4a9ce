// Breaks no rule while using what the plugin uses: UPARAM, defaults, meta
// with commas, object pointers, containers of Blueprint structs, and an
// explicit-capture task lambda.
#pragma once

#include "CoreMinimal.h"
#include "Kismet/BlueprintAsyncActionBase.h"
#include "Kismet/BlueprintFunctionLibrary.h"
#include "Tasks/Task.h"
#include "Good.generated.h"

UENUM(BlueprintType)
enum class EGoodMode : uint8
{
	One UMETA(DisplayName = "One, the first"),
	Two,
};

USTRUCT(BlueprintType)
struct FGoodHit
{
	GENERATED_BODY()

	UPROPERTY(BlueprintReadOnly, Category = "Good")
	int64 Id = 0;

	UPROPERTY(BlueprintReadOnly, Category = "Good")
	TArray<float> Values;

	/** Not exposed: needs no Category and may be any type UHT allows. */
	UPROPERTY()
	uint32 Internal = 0;
};

DECLARE_DYNAMIC_MULTICAST_DELEGATE_TwoParams(FGoodDelegate, const TArray<FGoodHit>&, Hits, const FString&, Error);

UCLASS(BlueprintType)
class UGoodObject : public UObject
{
	GENERATED_BODY()

public:
	UFUNCTION(BlueprintPure, Category = "Good")
	int32 GetCount() const;

	void NotReflected(uint64 Anything, TSharedPtr<int32> Pointer);
};

UCLASS()
class UGoodLibrary : public UBlueprintFunctionLibrary
{
	GENERATED_BODY()

public:
	UFUNCTION(BlueprintCallable, Category = "Good", meta = (ReturnDisplayName = "Success", AdvancedDisplay = "Mode,Scale"))
	static bool Make(const UObject* WorldContextObject, int32 Count, EGoodMode Mode, UGoodObject*& Object, FString& Error, double Scale = 1.0);

	UFUNCTION(BlueprintCallable, Category = "Good")
	static void Fill(UPARAM(ref) TArray<FGoodHit>& Hits, TSubclassOf<UObject> Class, const TMap<FName, int64>& Table);

	static void NotReflected(size_t Count);
};

UCLASS()
class UGoodAction : public UBlueprintAsyncActionBase
{
	GENERATED_BODY()

public:
	UFUNCTION(BlueprintCallable, Category = "Good", meta = (BlueprintInternalUseOnly = "true"))
	static UGoodAction* Start(UGoodObject* Object, int32 K = 10);

	UPROPERTY(BlueprintAssignable, Category = "Good")
	FGoodDelegate OnDone;

	virtual void Activate() override
	{
		TSharedPtr<int32> Native;
		UE::Tasks::Launch(TEXT("Good"), [Native, Count = 3]() { (void)Count; });
	}
};
