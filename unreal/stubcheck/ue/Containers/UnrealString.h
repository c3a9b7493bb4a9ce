// Stand-in for Unreal's FString, FStringView and the UTF-8 conversion macros.
// Declarations only. Not Unreal code.
#pragma once

#include "CoreTypes.h"
#include "Containers/Array.h"
#include "Misc/StubFormat.h"

class FString;

template <typename CharType>
class TStringView
{
public:
	constexpr TStringView();
	TStringView(const CharType* InData);
	TStringView(const FString& InString);
	const CharType* GetData() const;
	int32 Len() const;
};
typedef TStringView<TCHAR> FStringView;

class FString
{
public:
	FString();
	FString(const FString&);
	FString(FString&&);
	FString(const TCHAR* Str);
	explicit FString(int32 Len, const TCHAR* Str);
	~FString();
	FString& operator=(const FString&);
	FString& operator=(FString&&);
	FString& operator=(const TCHAR* Str);

	const TCHAR* operator*() const;
	int32 Len() const;
	bool IsEmpty() const;
	void Reset(int32 NewReservedSize = 0);
	void Empty();
	bool Contains(const TCHAR* SubStr) const;
	bool Contains(const FString& SubStr) const;
	FString& operator+=(const FString& Str);
	FString& operator+=(const TCHAR* Str);
	friend FString operator+(const FString& Lhs, const FString& Rhs);
	friend FString operator+(const FString& Lhs, const TCHAR* Rhs);
	friend bool operator==(const FString& Lhs, const FString& Rhs);
	friend bool operator==(const FString& Lhs, const TCHAR* Rhs);

	/** As in UE 5.3+: the format is checked against the argument types at compile time. */
	template <typename... Types>
	[[nodiscard]] static FString Printf(UEStub::Format::TCheckedFormatString<std::type_identity_t<Types>...> Fmt, Types... Args)
	{
		static_assert(((UEStub::Format::KindOf<Types>() != UEStub::Format::EKind::Invalid) && ...), "Invalid argument(s) passed to FString::Printf");
		(void)Fmt;
		((void)Args, ...);
		return FString();
	}

	template <typename RangeType>
	[[nodiscard]] static FString Join(const RangeType& Range, const TCHAR* Separator);
};

/** UTF-8 to TCHAR: only for the full expression that uses it, as in Unreal. */
class FUTF8ToTCHAR
{
public:
	explicit FUTF8ToTCHAR(const ANSICHAR* Source);
	const TCHAR* Get() const;
	int32 Length() const;
};

class FTCHARToUTF8
{
public:
	explicit FTCHARToUTF8(const TCHAR* Source);
	const ANSICHAR* Get() const;
	int32 Length() const;
};

#define UTF8_TO_TCHAR(str) (TCHAR*)FUTF8ToTCHAR((const ANSICHAR*)str).Get()
#define TCHAR_TO_UTF8(str) (ANSICHAR*)FTCHARToUTF8((const TCHAR*)str).Get()
