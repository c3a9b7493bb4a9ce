// Stand-in for Unreal's TArray (Containers/Array.h): the members the Astral
// plugin uses, with Unreal's signatures, over a std::vector so the async
// harness can run them. Not Unreal code.
#pragma once

#include "CoreTypes.h"
#include <initializer_list>
#include <vector>

// UE 5.4+: SetNum and friends take this instead of a bool.
enum class EAllowShrinking : uint8
{
	No,
	Yes,
};

template <typename InElementType>
class TArray
{
public:
	typedef int32 SizeType;
	typedef InElementType ElementType;

	TArray() = default;
	TArray(std::initializer_list<InElementType> InitList) : Items(InitList) {}
	TArray(const ElementType* Ptr, SizeType Count) : Items(Ptr, Ptr + Count) {}
	TArray(const TArray& Other) = default;
	TArray(TArray&& Other) : Items(std::move(Other.Items)) { Other.Items.clear(); }
	~TArray() = default;
	TArray& operator=(const TArray& Other) = default;
	TArray& operator=(TArray&& Other)
	{
		Items = std::move(Other.Items);
		Other.Items.clear();
		return *this;
	}
	TArray& operator=(std::initializer_list<InElementType> InitList)
	{
		Items.assign(InitList);
		return *this;
	}

	SizeType Num() const { return static_cast<SizeType>(Items.size()); }
	bool IsEmpty() const { return Items.empty(); }
	ElementType* GetData() { return Items.data(); }
	const ElementType* GetData() const { return Items.data(); }
	ElementType& operator[](SizeType Index)
	{
		check(Index >= 0 && Index < Num());
		return Items[static_cast<std::size_t>(Index)];
	}
	const ElementType& operator[](SizeType Index) const
	{
		check(Index >= 0 && Index < Num());
		return Items[static_cast<std::size_t>(Index)];
	}

	SizeType Add(const ElementType& Item)
	{
		Items.push_back(Item);
		return Num() - 1;
	}
	SizeType Add(ElementType&& Item)
	{
		Items.push_back(std::move(Item));
		return Num() - 1;
	}
	template <typename... ArgsType>
	SizeType Emplace(ArgsType&&... Args)
	{
		Items.emplace_back(Forward<ArgsType>(Args)...);
		return Num() - 1;
	}
	void Reset(SizeType NewSize = 0)
	{
		Items.clear();
		Items.reserve(static_cast<std::size_t>(NewSize));
	}
	void Empty(SizeType Slack = 0)
	{
		std::vector<ElementType>().swap(Items);
		Items.reserve(static_cast<std::size_t>(Slack));
	}
	void Append(const ElementType* Ptr, SizeType Count)
	{
		check(Count >= 0 && (Ptr != nullptr || Count == 0));
		Items.insert(Items.end(), Ptr, Ptr + Count);
	}
	void Append(const TArray& Source) { Items.insert(Items.end(), Source.Items.begin(), Source.Items.end()); }
	void Reserve(SizeType Number) { Items.reserve(static_cast<std::size_t>(Number)); }
	void SetNum(SizeType NewNum, EAllowShrinking AllowShrinking = EAllowShrinking::Yes) { Resize(NewNum, AllowShrinking); }
	void SetNumUninitialized(SizeType NewNum, EAllowShrinking AllowShrinking = EAllowShrinking::Yes) { Resize(NewNum, AllowShrinking); }
	void SetNumZeroed(SizeType NewNum, EAllowShrinking AllowShrinking = EAllowShrinking::Yes) { Resize(NewNum, AllowShrinking); }

	ElementType* begin() { return Items.data(); }
	ElementType* end() { return Items.data() + Items.size(); }
	const ElementType* begin() const { return Items.data(); }
	const ElementType* end() const { return Items.data() + Items.size(); }

private:
	void Resize(SizeType NewNum, EAllowShrinking)
	{
		check(NewNum >= 0);
		Items.resize(static_cast<std::size_t>(NewNum));
	}

	std::vector<ElementType> Items;
};
