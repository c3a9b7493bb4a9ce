// Stand-in for Unreal's TArray (Containers/Array.h): the members the Astral
// plugin uses, with Unreal's signatures. Declarations only. Not Unreal code.
#pragma once

#include "CoreTypes.h"
#include <initializer_list>

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

	TArray();
	TArray(std::initializer_list<InElementType> InitList);
	TArray(const ElementType* Ptr, SizeType Count);
	TArray(const TArray& Other);
	TArray(TArray&& Other);
	~TArray();
	TArray& operator=(const TArray& Other);
	TArray& operator=(TArray&& Other);
	TArray& operator=(std::initializer_list<InElementType> InitList);

	SizeType Num() const;
	bool IsEmpty() const;
	ElementType* GetData();
	const ElementType* GetData() const;
	ElementType& operator[](SizeType Index);
	const ElementType& operator[](SizeType Index) const;

	SizeType Add(const ElementType& Item);
	SizeType Add(ElementType&& Item);
	template <typename... ArgsType>
	SizeType Emplace(ArgsType&&... Args);
	void Reset(SizeType NewSize = 0);
	void Empty(SizeType Slack = 0);
	void Reserve(SizeType Number);
	void SetNum(SizeType NewNum, EAllowShrinking AllowShrinking = EAllowShrinking::Yes);
	void SetNumUninitialized(SizeType NewNum, EAllowShrinking AllowShrinking = EAllowShrinking::Yes);
	void SetNumZeroed(SizeType NewNum, EAllowShrinking AllowShrinking = EAllowShrinking::Yes);

	ElementType* begin();
	ElementType* end();
	const ElementType* begin() const;
	const ElementType* end() const;
};
