// Stand-in for Unreal's compile-time format string check (UE 5.3+): each
// printf conversion of a UE_LOG or FString::Printf format must match its
// argument, %s takes a TCHAR pointer (so an FString needs *), and no class
// object goes through the varargs. Not Unreal code.
#pragma once

#include "CoreTypes.h"

namespace UEStub::Format
{
	enum class EKind
	{
		Int32,
		Int64,
		Float,
		String,
		Pointer,
		Invalid,
	};

	template <typename T>
	consteval EKind KindOf()
	{
		using D = std::decay_t<T>;
		if constexpr (std::is_same_v<D, bool>)
		{
			return EKind::Int32;
		}
		else if constexpr (std::is_integral_v<D>)
		{
			return sizeof(D) <= 4 ? EKind::Int32 : EKind::Int64;
		}
		else if constexpr (std::is_floating_point_v<D>)
		{
			return EKind::Float;
		}
		else if constexpr (std::is_pointer_v<D>)
		{
			return std::is_same_v<std::remove_cv_t<std::remove_pointer_t<D>>, TCHAR> ? EKind::String : EKind::Pointer;
		}
		else if constexpr (std::is_null_pointer_v<D>)
		{
			return EKind::Pointer;
		}
		else
		{
			return EKind::Invalid; // class types, and enums without a cast
		}
	}

	consteval bool IsDigit(TCHAR C)
	{
		return C >= u'0' && C <= u'9';
	}

	template <typename... Types>
	consteval bool Matches(const TCHAR* Fmt)
	{
		constexpr EKind Kinds[] = {KindOf<Types>()..., EKind::Invalid};
		const std::size_t Count = sizeof...(Types);
		std::size_t Next = 0;
		for (const TCHAR* P = Fmt; *P != 0; ++P)
		{
			if (*P != u'%')
			{
				continue;
			}
			++P;
			if (*P == u'%')
			{
				continue;
			}
			while (*P == u'-' || *P == u'+' || *P == u' ' || *P == u'#' || *P == u'0')
			{
				++P;
			}
			for (int Part = 0; Part < 2; ++Part) // width, then precision
			{
				if (Part == 1)
				{
					if (*P != u'.')
					{
						break;
					}
					++P;
				}
				if (*P == u'*')
				{
					if (Next >= Count || Kinds[Next] != EKind::Int32)
					{
						return false;
					}
					++Next;
					++P;
				}
				while (IsDigit(*P))
				{
					++P;
				}
			}
			int Longs = 0;
			while (*P == u'l')
			{
				++Longs;
				++P;
			}
			if (Next >= Count)
			{
				return false; // more conversions than arguments
			}
			const EKind Kind = Kinds[Next++];
			switch (*P)
			{
			case u'd':
			case u'i':
			case u'u':
			case u'x':
			case u'X':
			case u'o':
				if (!((Longs == 0 && Kind == EKind::Int32) || (Longs == 2 && Kind == EKind::Int64)))
				{
					return false;
				}
				break;
			case u'c':
				if (Longs != 0 || Kind != EKind::Int32)
				{
					return false;
				}
				break;
			case u'f':
			case u'F':
			case u'e':
			case u'E':
			case u'g':
			case u'G':
				if (Longs != 0 || Kind != EKind::Float)
				{
					return false;
				}
				break;
			case u's':
				if (Longs != 0 || Kind != EKind::String)
				{
					return false;
				}
				break;
			case u'p':
				if (Longs != 0 || (Kind != EKind::Pointer && Kind != EKind::String))
				{
					return false;
				}
				break;
			default:
				return false; // h, z, j, t, L or an unknown conversion
			}
		}
		return Next == Count; // no argument left over
	}

	template <typename... Types>
	struct TTypeList
	{
	};

	template <typename... Types>
	TTypeList<Types...> TypesOf(Types&&...);

	template <typename... Types>
	consteval bool MatchesList(TTypeList<Types...>, const TCHAR* Fmt)
	{
		return Matches<Types...>(Fmt);
	}

	// Called only when a format does not match: a consteval caller then fails to compile.
	void UE_FORMAT_STRING_DOES_NOT_MATCH_ITS_ARGUMENTS();

	// A format string checked against Types when it is constructed, as
	// UE::Core::TCheckedFormatString is.
	template <typename... Types>
	struct TCheckedFormatString
	{
		template <std::size_t N>
		consteval TCheckedFormatString(const TCHAR (&InFormat)[N])
			: Format(InFormat)
		{
			if (!Matches<Types...>(InFormat))
			{
				UE_FORMAT_STRING_DOES_NOT_MATCH_ITS_ARGUMENTS();
			}
		}
		const TCHAR* Format;
	};
}

#define UE_STUB_CHECK_FORMAT(InFormat, ...) \
	static_assert(::UEStub::Format::MatchesList(decltype(::UEStub::Format::TypesOf(__VA_ARGS__)){}, InFormat), \
		"format string and arguments disagree (Unreal's compile-time format check rejects this)")
