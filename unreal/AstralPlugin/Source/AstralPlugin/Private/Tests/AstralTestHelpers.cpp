#include "Tests/AstralTestHelpers.h"

#if WITH_DEV_AUTOMATION_TESTS

#include "AstralBlueprintLibrary.h"
#include "AstralIndex.h"
#include "AstralNativeIndex.h"
#include "Misc/AutomationTest.h"
#include "Misc/CommandLine.h"
#include "Misc/FileHelper.h"
#include "Misc/Parse.h"

namespace UE::Astral::Tests
{
	bool RequireAstral(FAutomationTestBase& Test)
	{
		if (UAstralBlueprintLibrary::IsAstralAvailable())
		{
			return true;
		}
		Test.AddError(TEXT("libastral is not available (see LogAstral at start-up); stage it with Scripts/build_libastral.sh"));
		return false;
	}

	bool LoadFixture(FAutomationTestBase& Test, astral::bench::Fixture& OutFixture, FString& OutDescription)
	{
		FString BasePath;
		FString QueriesPath;
		const bool bHasBase = FParse::Value(FCommandLine::Get(), TEXT("AstralFixtureBase="), BasePath);
		const bool bHasQueries = FParse::Value(FCommandLine::Get(), TEXT("AstralFixtureQueries="), QueriesPath);
		if (bHasBase != bHasQueries)
		{
			Test.AddError(TEXT("-AstralFixtureBase= and -AstralFixtureQueries= go together"));
			return false;
		}
		if (!bHasBase)
		{
			OutFixture = astral::bench::random_fixture();
			OutDescription = TEXT("the reference random fixture (Go recipe)");
			return true;
		}

		TArray<uint8> BaseBytes;
		TArray<uint8> QueryBytes;
		if (!FFileHelper::LoadFileToArray(BaseBytes, *BasePath) || !FFileHelper::LoadFileToArray(QueryBytes, *QueriesPath))
		{
			Test.AddError(FString::Printf(TEXT("Cannot read %s or %s"), *BasePath, *QueriesPath));
			return false;
		}
		std::string Error;
		if (!astral::bench::fixture_from_fvecs(BaseBytes.GetData(), static_cast<std::size_t>(BaseBytes.Num()),
			QueryBytes.GetData(), static_cast<std::size_t>(QueryBytes.Num()), OutFixture, Error))
		{
			Test.AddError(FString::Printf(TEXT("%s: %s"), *BasePath, UTF8_TO_TCHAR(Error.c_str())));
			return false;
		}
		if (OutFixture.count() < astral::bench::kReferenceK)
		{
			Test.AddError(FString::Printf(TEXT("%s holds fewer than %u vectors"), *BasePath, astral::bench::kReferenceK));
			return false;
		}
		OutDescription = FString::Printf(TEXT("%s + %s"), *BasePath, *QueriesPath);
		return true;
	}

	bool IsReferenceFixture(const astral::bench::Fixture& Fixture)
	{
		return Fixture.dimension == astral::bench::kReferenceDimension
			&& Fixture.count() == astral::bench::kReferenceCount
			&& Fixture.query_count() == astral::bench::kReferenceQueries
			&& astral::bench::fixture_hash(Fixture) == astral::bench::kReferenceRandomHash;
	}

	UAstralIndex* MakeFixtureIndex(FAutomationTestBase& Test, const astral::bench::Fixture& Fixture)
	{
		UAstralIndex* Index = nullptr;
		FString Error;
		FAstralIndexOptions Options;
		Options.Kind = EAstralIndexKind::Flat;
		if (UAstralBlueprintLibrary::CreateIndex(static_cast<int32>(Fixture.dimension), Options, Index, Error) != EAstralOutcome::Success)
		{
			Test.AddError(Error);
			return nullptr;
		}
		const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = Index->GetNative();
		check(Native.IsValid()); // Create Index succeeded
		const astral::Status Status = astral::bench::add_fixture(Native->GetIndex(), Fixture);
		if (!Status)
		{
			AddStatusError(Test, TEXT("adding the fixture"), Status);
			return nullptr;
		}
		return Index;
	}

	void AddStatusError(FAutomationTestBase& Test, const TCHAR* What, astral::Status Status)
	{
		Test.AddError(UE::Astral::DescribeFailure(What, Status.code()));
	}
}

#endif // WITH_DEV_AUTOMATION_TESTS
