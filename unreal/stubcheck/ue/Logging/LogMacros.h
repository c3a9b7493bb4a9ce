// Stand-in for Unreal's log categories and UE_LOG, with the compile-time
// format check of UE 5.3+. Not Unreal code.
#pragma once

#include "CoreTypes.h"
#include "Misc/StubFormat.h"
#include "Containers/UnrealString.h"

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
	FString StubName;
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
	/** Where a log line goes (ue_runtime.cpp keeps warnings and errors for the async harness). */
	void WriteLog(const FLogCategoryBase& Category, ELogVerbosity::Type Verbosity, const FString& Message);

	template <typename... Types>
	void Log(const FLogCategoryBase& Category, ELogVerbosity::Type Verbosity, const TCHAR* Format, Types... Args)
	{
		static_assert(((Format::KindOf<Types>() != Format::EKind::Invalid) && ...), "Invalid argument(s) passed to UE_LOG");
		const std::string Text = FormatArgs(Format, { ToFormatArg(Args)... });
		WriteLog(Category, Verbosity, FString(FromUtf8(Text.c_str()).c_str()));
	}
}

#define UE_LOG(CategoryName, Verbosity, InFormat, ...) \
	do \
	{ \
		UE_STUB_CHECK_FORMAT(InFormat, ##__VA_ARGS__); \
		::UEStub::Log(CategoryName, ::ELogVerbosity::Verbosity, InFormat, ##__VA_ARGS__); \
	} while (false)
