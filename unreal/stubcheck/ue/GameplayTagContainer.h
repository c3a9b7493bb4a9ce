// Stand-in for the GameplayTags module's FGameplayTag and
// FGameplayTagContainer (Runtime/GameplayTags/Classes/GameplayTagContainer.h),
// with the engine's signatures for what the plugin uses. In the engine a tag
// exists only once registered in the tags table; here any name makes one.
// Not Unreal code.
#pragma once

#include "CoreMinimal.h"

struct FGameplayTag
{
	FGameplayTag() = default;

	/** The tag named TagName; invalid (None) when TagName is None. */
	static FGameplayTag RequestGameplayTag(const FName& TagName, bool ErrorIfNotFound = true)
	{
		(void)ErrorIfNotFound;
		FGameplayTag Tag;
		Tag.TagName = TagName;
		return Tag;
	}

	bool IsValid() const { return !TagName.IsNone(); }
	const FName& GetTagName() const { return TagName; }
	FString ToString() const { return TagName.ToString(); }
	friend bool operator==(const FGameplayTag& Lhs, const FGameplayTag& Rhs) { return Lhs.TagName == Rhs.TagName; }

private:
	FName TagName;
};

struct FGameplayTagContainer
{
	FGameplayTagContainer() = default;

	int32 Num() const { return GameplayTags.Num(); }
	bool IsEmpty() const { return GameplayTags.IsEmpty(); }
	bool IsValid() const { return GameplayTags.Num() > 0; }
	FGameplayTag GetByIndex(int32 Index) const { return GameplayTags[Index]; }

	/** Adds TagToAdd unless it is invalid or already there. */
	void AddTag(const FGameplayTag& TagToAdd)
	{
		if (!TagToAdd.IsValid())
		{
			return;
		}
		for (const FGameplayTag& Tag : GameplayTags)
		{
			if (Tag == TagToAdd)
			{
				return;
			}
		}
		GameplayTags.Add(TagToAdd);
	}

	void GetGameplayTagArray(TArray<FGameplayTag>& InOutGameplayTags) const { InOutGameplayTags = GameplayTags; }

private:
	TArray<FGameplayTag> GameplayTags;
};
