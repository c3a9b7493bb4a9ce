// Stand-in for Unreal's FString, FStringView and the UTF-8 conversion macros,
// with Unreal's signatures, over std::basic_string so the async harness can
// run them. Not Unreal code.
#pragma once

#include "CoreTypes.h"
#include "Containers/Array.h"
#include "Misc/StubFormat.h"

#include <cstdio>
#include <string>
#include <variant>
#include <vector>

class FString;

namespace ESearchCase
{
	enum Type
	{
		CaseSensitive,
		IgnoreCase,
	};
}

namespace UEStub
{
	using FStdString = std::basic_string<TCHAR>;

	/** UTF-16 (TCHAR) to UTF-8; a lone surrogate becomes U+FFFD. */
	inline std::string ToUtf8(const TCHAR* Source)
	{
		std::string Out;
		for (const TCHAR* P = Source; P != nullptr && *P != 0; ++P)
		{
			uint32 C = static_cast<uint16>(*P);
			if (C >= 0xD800 && C < 0xDC00 && static_cast<uint16>(P[1]) >= 0xDC00 && static_cast<uint16>(P[1]) < 0xE000)
			{
				C = 0x10000 + ((C - 0xD800) << 10) + (static_cast<uint16>(P[1]) - 0xDC00);
				++P;
			}
			else if (C >= 0xD800 && C < 0xE000)
			{
				C = 0xFFFD;
			}
			if (C < 0x80)
			{
				Out += static_cast<char>(C);
			}
			else if (C < 0x800)
			{
				Out += static_cast<char>(0xC0 | (C >> 6));
				Out += static_cast<char>(0x80 | (C & 0x3F));
			}
			else if (C < 0x10000)
			{
				Out += static_cast<char>(0xE0 | (C >> 12));
				Out += static_cast<char>(0x80 | ((C >> 6) & 0x3F));
				Out += static_cast<char>(0x80 | (C & 0x3F));
			}
			else
			{
				Out += static_cast<char>(0xF0 | (C >> 18));
				Out += static_cast<char>(0x80 | ((C >> 12) & 0x3F));
				Out += static_cast<char>(0x80 | ((C >> 6) & 0x3F));
				Out += static_cast<char>(0x80 | (C & 0x3F));
			}
		}
		return Out;
	}

	/** UTF-8 to UTF-16 (TCHAR); a malformed byte becomes U+FFFD. */
	inline FStdString FromUtf8(const ANSICHAR* Source)
	{
		FStdString Out;
		const unsigned char* P = reinterpret_cast<const unsigned char*>(Source);
		while (P != nullptr && *P != 0)
		{
			uint32 C = *P++;
			int Extra = C >= 0xF0 ? 3 : C >= 0xE0 ? 2 : C >= 0xC0 ? 1 : 0;
			if (C >= 0x80 && Extra == 0)
			{
				C = 0xFFFD;
			}
			else if (Extra > 0)
			{
				C &= 0x3F >> Extra;
				for (; Extra > 0 && (*P & 0xC0) == 0x80; --Extra)
				{
					C = (C << 6) | (*P++ & 0x3F);
				}
				if (Extra > 0)
				{
					C = 0xFFFD;
				}
			}
			if (C >= 0x10000)
			{
				Out += static_cast<TCHAR>(0xD800 + ((C - 0x10000) >> 10));
				Out += static_cast<TCHAR>(0xDC00 + ((C - 0x10000) & 0x3FF));
			}
			else
			{
				Out += static_cast<TCHAR>(C);
			}
		}
		return Out;
	}

	/** One Printf argument, widened. */
	using FFormatArg = std::variant<long long, unsigned long long, double, std::string, const void*>;

	template <typename T>
	FFormatArg ToFormatArg(T Value)
	{
		using D = std::decay_t<T>;
		if constexpr (std::is_same_v<D, bool>)
		{
			return static_cast<long long>(Value);
		}
		else if constexpr (std::is_integral_v<D> && std::is_signed_v<D>)
		{
			return static_cast<long long>(Value);
		}
		else if constexpr (std::is_integral_v<D>)
		{
			return static_cast<unsigned long long>(Value);
		}
		else if constexpr (std::is_floating_point_v<D>)
		{
			return static_cast<double>(Value);
		}
		else if constexpr (std::is_pointer_v<D> && std::is_same_v<std::remove_cv_t<std::remove_pointer_t<D>>, TCHAR>)
		{
			return Value == nullptr ? std::string("(null)") : ToUtf8(Value);
		}
		else
		{
			return static_cast<const void*>(Value);
		}
	}

	/** Printf's conversions (those StubFormat.h accepts) on widened arguments. */
	inline std::string FormatArgs(const TCHAR* Fmt, const std::vector<FFormatArg>& Args)
	{
		std::string Out;
		std::size_t Next = 0;
		auto Take = [&]() -> const FFormatArg& { return Args.at(Next++); };
		for (const TCHAR* P = Fmt; *P != 0; ++P)
		{
			if (*P != u'%')
			{
				const TCHAR One[2] = { *P, 0 };
				Out += ToUtf8(One);
				continue;
			}
			std::string Spec = "%";
			++P;
			if (*P == u'%')
			{
				Out += '%';
				continue;
			}
			while (*P == u'-' || *P == u'+' || *P == u' ' || *P == u'#' || *P == u'0' || *P == u'.' || *P == u'*' || (*P >= u'0' && *P <= u'9'))
			{
				if (*P == u'*')
				{
					Spec += std::to_string(std::get<long long>(Take()));
				}
				else
				{
					Spec += static_cast<char>(*P);
				}
				++P;
			}
			while (*P == u'l')
			{
				++P;
			}
			const char Conversion = static_cast<char>(*P);
			const FFormatArg& Arg = Take();
			char Buffer[512];
			switch (Conversion)
			{
			case 's':
				Spec += 's';
				std::snprintf(Buffer, sizeof(Buffer), Spec.c_str(), std::get<std::string>(Arg).c_str());
				break;
			case 'c':
				Spec += 'c';
				std::snprintf(Buffer, sizeof(Buffer), Spec.c_str(), static_cast<int>(std::get<long long>(Arg)));
				break;
			case 'p':
				Spec += 'p';
				std::snprintf(Buffer, sizeof(Buffer), Spec.c_str(), std::holds_alternative<const void*>(Arg) ? std::get<const void*>(Arg) : nullptr);
				break;
			case 'f':
			case 'F':
			case 'e':
			case 'E':
			case 'g':
			case 'G':
				Spec += Conversion;
				std::snprintf(Buffer, sizeof(Buffer), Spec.c_str(), std::get<double>(Arg));
				break;
			default: // d i u x X o
				Spec += "ll";
				Spec += Conversion;
				if (std::holds_alternative<long long>(Arg))
				{
					std::snprintf(Buffer, sizeof(Buffer), Spec.c_str(), std::get<long long>(Arg));
				}
				else
				{
					std::snprintf(Buffer, sizeof(Buffer), Spec.c_str(), std::get<unsigned long long>(Arg));
				}
				break;
			}
			Out += Buffer;
		}
		return Out;
	}
}

template <typename CharType>
class TStringView
{
public:
	constexpr TStringView() : Ptr(nullptr), Length(0) {}
	TStringView(const CharType* InData) : Ptr(InData), Length(static_cast<int32>(std::char_traits<CharType>::length(InData))) {}
	TStringView(const FString& InString);
	const CharType* GetData() const { return Ptr; }
	int32 Len() const { return Length; }

private:
	const CharType* Ptr;
	int32 Length;
};
typedef TStringView<TCHAR> FStringView;

class FString
{
public:
	FString() = default;
	FString(const FString&) = default;
	FString(FString&& Other) : Chars(std::move(Other.Chars)) { Other.Chars.clear(); }
	FString(const TCHAR* Str) : Chars(Str != nullptr ? Str : TEXT("")) {}
	explicit FString(int32 Len, const TCHAR* Str) : Chars(Str, static_cast<std::size_t>(Len)) {}
	~FString() = default;
	FString& operator=(const FString&) = default;
	FString& operator=(FString&& Other)
	{
		Chars = std::move(Other.Chars);
		Other.Chars.clear();
		return *this;
	}
	FString& operator=(const TCHAR* Str)
	{
		Chars = Str != nullptr ? Str : TEXT("");
		return *this;
	}

	const TCHAR* operator*() const { return Chars.c_str(); }
	int32 Len() const { return static_cast<int32>(Chars.size()); }
	bool IsEmpty() const { return Chars.empty(); }
	void Reset(int32 NewReservedSize = 0)
	{
		Chars.clear();
		Chars.reserve(static_cast<std::size_t>(NewReservedSize));
	}
	void Empty() { UEStub::FStdString().swap(Chars); }
	bool Contains(const TCHAR* SubStr) const { return Chars.find(SubStr) != UEStub::FStdString::npos; }
	bool Contains(const FString& SubStr) const { return Chars.find(SubStr.Chars) != UEStub::FStdString::npos; }
	/** Unreal's default, IgnoreCase, folds ASCII letters only here. */
	bool StartsWith(const FString& Prefix, ESearchCase::Type SearchCase = ESearchCase::IgnoreCase) const
	{
		if (Prefix.Chars.size() > Chars.size())
		{
			return false;
		}
		for (std::size_t I = 0; I < Prefix.Chars.size(); ++I)
		{
			TCHAR A = Chars[I];
			TCHAR B = Prefix.Chars[I];
			if (SearchCase == ESearchCase::IgnoreCase)
			{
				A = A >= 'A' && A <= 'Z' ? static_cast<TCHAR>(A - 'A' + 'a') : A;
				B = B >= 'A' && B <= 'Z' ? static_cast<TCHAR>(B - 'A' + 'a') : B;
			}
			if (A != B)
			{
				return false;
			}
		}
		return true;
	}
	FString& operator+=(const FString& Str)
	{
		Chars += Str.Chars;
		return *this;
	}
	FString& operator+=(const TCHAR* Str)
	{
		Chars += Str;
		return *this;
	}
	friend FString operator+(const FString& Lhs, const FString& Rhs) { return FString(Lhs) += Rhs; }
	friend FString operator+(const FString& Lhs, const TCHAR* Rhs) { return FString(Lhs) += Rhs; }
	friend bool operator==(const FString& Lhs, const FString& Rhs) { return Lhs.Chars == Rhs.Chars; }
	friend bool operator==(const FString& Lhs, const TCHAR* Rhs) { return Lhs.Chars == Rhs; }

	/** As in UE 5.3+: the format is checked against the argument types at compile time. */
	template <typename... Types>
	[[nodiscard]] static FString Printf(UEStub::Format::TCheckedFormatString<std::type_identity_t<Types>...> Fmt, Types... Args)
	{
		static_assert(((UEStub::Format::KindOf<Types>() != UEStub::Format::EKind::Invalid) && ...), "Invalid argument(s) passed to FString::Printf");
		const std::string Text = UEStub::FormatArgs(Fmt.Format, { UEStub::ToFormatArg(Args)... });
		return FString(UEStub::FromUtf8(Text.c_str()).c_str());
	}

	template <typename RangeType>
	[[nodiscard]] static FString Join(const RangeType& Range, const TCHAR* Separator)
	{
		FString Out;
		bool bFirst = true;
		for (const auto& Item : Range)
		{
			if (!bFirst)
			{
				Out += Separator;
			}
			Out += Item;
			bFirst = false;
		}
		return Out;
	}

private:
	UEStub::FStdString Chars;
};

template <typename CharType>
TStringView<CharType>::TStringView(const FString& InString)
	: Ptr(*InString)
	, Length(InString.Len())
{
}

/** UTF-8 to TCHAR: only for the full expression that uses it, as in Unreal. */
class FUTF8ToTCHAR
{
public:
	explicit FUTF8ToTCHAR(const ANSICHAR* Source) : Converted(UEStub::FromUtf8(Source)) {}
	/** SourceLen bytes, not NUL-terminated (this stand-in stops at an embedded NUL). */
	FUTF8ToTCHAR(const ANSICHAR* Source, int32 SourceLen) : Converted(UEStub::FromUtf8(std::string(Source, static_cast<std::size_t>(SourceLen)).c_str())) {}
	const TCHAR* Get() const { return Converted.c_str(); }
	int32 Length() const { return static_cast<int32>(Converted.size()); }

private:
	UEStub::FStdString Converted;
};

class FTCHARToUTF8
{
public:
	explicit FTCHARToUTF8(const TCHAR* Source) : Converted(UEStub::ToUtf8(Source)) {}
	const ANSICHAR* Get() const { return Converted.c_str(); }
	int32 Length() const { return static_cast<int32>(Converted.size()); }

private:
	std::string Converted;
};

#define UTF8_TO_TCHAR(str) (TCHAR*)FUTF8ToTCHAR((const ANSICHAR*)str).Get()
#define TCHAR_TO_UTF8(str) (ANSICHAR*)FTCHARToUTF8((const TCHAR*)str).Get()
