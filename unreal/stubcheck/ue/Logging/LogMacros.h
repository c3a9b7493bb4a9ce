// Stand-in for Unreal's log categories and UE_LOG, with the compile-time
// format check of UE 5.3+. Not Unreal code.
#pragma once

#include "CoreTypes.h"
#include "Misc/StubFormat.h"

namespace ELogVerbosity
{
	enum Type : uint8
	{
		NoLogging = 0,
		Fatal,
		Error,
		Warning,
		Display,
		Log,
		Verbose,
		VeryVerbose,
		All = VeryVerbose,
	};
}

struct FLogCategoryBase
{
	FLogCategoryBase(const TCHAR* CategoryName, ELogVerbosity::Type DefaultVerbosity, ELogVerbosity::Type CompileTimeVerbosity);
};

#define DECLARE_LOG_CATEGORY_EXTERN(CategoryName, DefaultVerbosity, CompileTimeVerbosity) \
	extern struct FLogCategory##CategoryName : public FLogCategoryBase \
	{ \
		FLogCategory##CategoryName() \
			: FLogCategoryBase(TEXT(#CategoryName), ELogVerbosity::DefaultVerbosity, ELogVerbosity::CompileTimeVerbosity) \
		{ \
		} \
	} CategoryName

#define DEFINE_LOG_CATEGORY(CategoryName) FLogCategory##CategoryName CategoryName

namespace UEStub
{
	template <typename... Types>
	void Log(const FLogCategoryBase& Category, ELogVerbosity::Type Verbosity, const TCHAR* Format, Types... Args)
	{
		static_assert(((Format::KindOf<Types>() != Format::EKind::Invalid) && ...), "Invalid argument(s) passed to UE_LOG");
		(void)Category;
		(void)Verbosity;
		(void)Format;
		((void)Args, ...);
	}
}

#define UE_LOG(CategoryName, Verbosity, InFormat, ...) \
	do \
	{ \
		UE_STUB_CHECK_FORMAT(InFormat, ##__VA_ARGS__); \
		::UEStub::Log(CategoryName, ::ELogVerbosity::Verbosity, InFormat, ##__VA_ARGS__); \
	} while (false)
