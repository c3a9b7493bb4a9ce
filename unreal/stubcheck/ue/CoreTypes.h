// Stand-in for Unreal's CoreTypes.h and the platform headers behind it: only
// what the Astral plugin uses, with Unreal's real names and types, so that
// `g++ -fsyntax-only` rejects what UnrealBuildTool would. Not Unreal code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

// Unreal's fixed-width types, as FGenericPlatformTypes defines them: int64 is
// long long everywhere, unlike int64_t (long on Linux), so mixing uint64 and
// uint64_t pointers fails here as it does on Linux.
typedef unsigned char uint8;
typedef unsigned short int uint16;
typedef unsigned int uint32;
typedef unsigned long long uint64;
typedef signed char int8;
typedef signed short int int16;
typedef signed int int32;
typedef signed long long int64;
typedef char ANSICHAR;
typedef decltype(nullptr) TYPE_OF_NULLPTR;
typedef std::size_t SIZE_T;

// TEXT pastes a prefix onto its argument after expanding it, so
// TEXT(SOME_MACRO) works on a macro holding a string literal.
#ifdef _WIN32
typedef wchar_t TCHAR;
#define TEXT_PASTE(x) L##x
#else
typedef char16_t TCHAR; // Linux and Mac
#define TEXT_PASTE(x) u##x
#endif
#define TEXT(x) TEXT_PASTE(x)

#define MAX_int32 ((int32)0x7fffffff)
#define MAX_uint32 ((uint32)0xffffffff)

#define FORCEINLINE inline
#ifdef _WIN32
#define DLLEXPORT __declspec(dllexport)
#define DLLIMPORT __declspec(dllimport)
#else
#define DLLEXPORT __attribute__((visibility("default")))
#define DLLIMPORT __attribute__((visibility("default")))
#endif

#define THIRD_PARTY_INCLUDES_START _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wshadow\"")
#define THIRD_PARTY_INCLUDES_END _Pragma("GCC diagnostic pop")

#ifndef PLATFORM_WINDOWS
#define PLATFORM_WINDOWS 0
#endif
#ifndef PLATFORM_LINUX
#define PLATFORM_LINUX 0
#endif
#ifndef PLATFORM_MAC
#define PLATFORM_MAC 0
#endif

namespace UEStub
{
	[[noreturn]] void CheckFailed(const char* Expression, const char* File, int Line);
}

// As in a development build (DO_CHECK 1): the expression must convert to bool.
#define check(expr) \
	do \
	{ \
		if (!(expr)) \
		{ \
			::UEStub::CheckFailed(#expr, __FILE__, __LINE__); \
		} \
	} while (false)

// MoveTemp refuses const and rvalue arguments, as Unreal's does.
template <typename T>
constexpr std::remove_reference_t<T>&& MoveTemp(T&& Obj)
{
	using CastType = std::remove_reference_t<T>;
	static_assert(std::is_lvalue_reference_v<T>, "MoveTemp called on an rvalue");
	static_assert(!std::is_same_v<CastType&, const CastType&>, "MoveTemp called on a const object");
	return static_cast<CastType&&>(Obj);
}

template <typename T>
constexpr T&& Forward(std::remove_reference_t<T>& Obj)
{
	return static_cast<T&&>(Obj);
}

#define ENUM_CLASS_FLAGS(Enum) \
	inline constexpr Enum operator|(Enum Lhs, Enum Rhs) { return (Enum)((std::underlying_type_t<Enum>)Lhs | (std::underlying_type_t<Enum>)Rhs); } \
	inline constexpr Enum operator&(Enum Lhs, Enum Rhs) { return (Enum)((std::underlying_type_t<Enum>)Lhs & (std::underlying_type_t<Enum>)Rhs); } \
	inline constexpr bool operator!(Enum E) { return !(std::underlying_type_t<Enum>)E; }

// Other macros Unreal defines everywhere: third-party headers included in a
// module (astral.hpp, astral_bench.hpp) must not use these names.
#define checkf(expr, format, ...) check(expr)
#define checkSlow(expr) check(expr)
#define verify(expr) check(expr)
#define ensure(expr) (!!(expr))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PI (3.1415926535897932f)
#define SMALL_NUMBER (1.e-8f)
#define KINDA_SMALL_NUMBER (1.e-4f)
#define BIG_NUMBER (3.4e+38f)
#define DELTA (0.00001f)
