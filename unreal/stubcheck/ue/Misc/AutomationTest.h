// Stand-in for Unreal's automation framework (Misc/AutomationTest.h), with the
// UE 5.5+ spelling of EAutomationTestFlags (an enum class; the context and
// filter masks are separate constants) and the same static checks on a
// test's flags as IMPLEMENT_SIMPLE_AUTOMATION_TEST. Not Unreal code.
#pragma once

#include "CoreMinimal.h"
#include "Templates/Function.h"

enum class EAutomationTestFlags : uint32
{
	None = 0x00000000,
	EditorContext = 0x00000001,
	ClientContext = 0x00000002,
	ServerContext = 0x00000004,
	CommandletContext = 0x00000008,
	ProgramContext = 0x00000010,
	NonNullRHI = 0x00000100,
	RequiresUser = 0x00000200,
	Disabled = 0x00010000,
	CriticalPriority = 0x00100000,
	HighPriority = 0x00200000,
	MediumPriority = 0x00400000,
	LowPriority = 0x00800000,
	SmokeFilter = 0x01000000,
	EngineFilter = 0x02000000,
	ProductFilter = 0x04000000,
	PerfFilter = 0x08000000,
	StressFilter = 0x10000000,
	NegativeFilter = 0x20000000,
};
ENUM_CLASS_FLAGS(EAutomationTestFlags)

inline constexpr EAutomationTestFlags EAutomationTestFlags_ApplicationContextMask = EAutomationTestFlags::EditorContext
	| EAutomationTestFlags::ClientContext | EAutomationTestFlags::ServerContext | EAutomationTestFlags::CommandletContext
	| EAutomationTestFlags::ProgramContext;
inline constexpr EAutomationTestFlags EAutomationTestFlags_FilterMask = EAutomationTestFlags::SmokeFilter
	| EAutomationTestFlags::EngineFilter | EAutomationTestFlags::ProductFilter | EAutomationTestFlags::PerfFilter
	| EAutomationTestFlags::StressFilter | EAutomationTestFlags::NegativeFilter;

namespace EAutomationExpectedErrorFlags
{
	enum MatchType
	{
		Exact,
		Contains,
	};
}

class IAutomationLatentCommand
{
public:
	virtual ~IAutomationLatentCommand();
	virtual bool Update() = 0;
};

class FFunctionLatentCommand : public IAutomationLatentCommand
{
public:
	FFunctionLatentCommand(TFunction<bool()> InLatentPredicate);
	virtual bool Update() override;
};

class FAutomationTestFramework
{
public:
	static FAutomationTestFramework& Get();
	void EnqueueLatentCommand(TSharedPtr<IAutomationLatentCommand> NewCommand);
};

#define ADD_LATENT_AUTOMATION_COMMAND(ClassDeclaration) \
	FAutomationTestFramework::Get().EnqueueLatentCommand(MakeShareable(new ClassDeclaration));

class FAutomationTestBase
{
public:
	FAutomationTestBase(const FString& InName, const bool bInComplexTask);
	virtual ~FAutomationTestBase();

	virtual EAutomationTestFlags GetTestFlags() const = 0;
	virtual uint32 GetRequiredDeviceNum() const = 0;

	virtual void AddError(const FString& InError, int32 StackOffset = 0);
	virtual void AddWarning(const FString& InWarning, int32 StackOffset = 0);
	virtual void AddInfo(const FString& InLogItem, int32 StackOffset = 0, bool bCaptureStack = false);
	void AddTelemetryData(const FString& DataPoint, double Measurement, const FString& Context = TEXT(""));
	void AddExpectedError(FString ExpectedPatternString,
		EAutomationExpectedErrorFlags::MatchType CompareType = EAutomationExpectedErrorFlags::Contains, int32 Occurrences = 1,
		bool IsRegex = true);

	bool TestTrue(const TCHAR* What, bool Value);
	bool TestTrue(const FString& What, bool Value);
	bool TestFalse(const TCHAR* What, bool Value);
	bool TestFalse(const FString& What, bool Value);
	bool TestEqual(const TCHAR* What, const int32 Actual, const int32 Expected);
	bool TestEqual(const TCHAR* What, const int64 Actual, const int64 Expected);
	bool TestEqual(const TCHAR* What, const uint64 Actual, const uint64 Expected);
	bool TestEqual(const TCHAR* What, const float Actual, const float Expected, float Tolerance = 1.e-4f);
	bool TestEqual(const TCHAR* What, const double Actual, const double Expected, double Tolerance = 1.e-4);
	bool TestEqual(const TCHAR* What, const FString& Actual, const FString& Expected);
	template <typename ValueType>
	bool TestNotNull(const TCHAR* What, const ValueType* Pointer);
	template <typename ValueType>
	bool TestNull(const TCHAR* What, const ValueType* Pointer);

protected:
	virtual bool RunTest(const FString& Parameters) = 0;
};

#define IMPLEMENT_SIMPLE_AUTOMATION_TEST(TClass, PrettyName, TFlags) \
	class TClass : public FAutomationTestBase \
	{ \
	public: \
		TClass(const FString& InName) \
			: FAutomationTestBase(InName, false) \
		{ \
			static_assert(!!((TFlags) & EAutomationTestFlags_ApplicationContextMask), "AutomationTest has no application flag. It shouldn't run. See AutomationTest.h."); \
			static_assert(((TFlags) & EAutomationTestFlags_FilterMask) == EAutomationTestFlags::SmokeFilter \
				|| ((TFlags) & EAutomationTestFlags_FilterMask) == EAutomationTestFlags::EngineFilter \
				|| ((TFlags) & EAutomationTestFlags_FilterMask) == EAutomationTestFlags::ProductFilter \
				|| ((TFlags) & EAutomationTestFlags_FilterMask) == EAutomationTestFlags::PerfFilter \
				|| ((TFlags) & EAutomationTestFlags_FilterMask) == EAutomationTestFlags::StressFilter \
				|| ((TFlags) & EAutomationTestFlags_FilterMask) == EAutomationTestFlags::NegativeFilter, \
				"All AutomationTests must have exactly 1 filter type specified. See AutomationTest.h."); \
		} \
		virtual EAutomationTestFlags GetTestFlags() const override { return TFlags; } \
		virtual uint32 GetRequiredDeviceNum() const override { return 1; } \
	protected: \
		virtual bool RunTest(const FString& Parameters) override; \
	}; \
	namespace \
	{ \
		TClass TClass##AutomationTestInstance(TEXT(PrettyName)); \
	}
