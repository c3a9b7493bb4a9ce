// Shared by the Astral Automation tests.

#pragma once

#include "CoreMinimal.h"

#if WITH_DEV_AUTOMATION_TESTS

#include "Async/ParallelFor.h"
#include "AstralApi.h"

THIRD_PARTY_INCLUDES_START
#include "astral_bench.hpp"
THIRD_PARTY_INCLUDES_END

class FAutomationTestBase;
class UAstralIndex;

namespace UE::Astral::Tests
{
	/** astral_bench's parallel loop over Unreal's task system. */
	struct FParallelForEach
	{
		template <typename BodyType>
		void operator()(std::size_t Count, const BodyType& Body) const
		{
			ParallelFor(static_cast<int32>(Count), [&Body](int32 Index)
			{
				Body(static_cast<std::size_t>(Index));
			});
		}
	};

	/** Adds an error and returns false when libastral is not loaded and started. */
	bool RequireAstral(FAutomationTestBase& Test);

	/**
	 * The benchmark fixture: the .fvecs files given with
	 * -AstralFixtureBase=<file> -AstralFixtureQueries=<file> (written by
	 * `astral fixture`), else the reference `random` fixture regenerated with
	 * the Go recipe. OutDescription says which. False with an error added.
	 */
	bool LoadFixture(FAutomationTestBase& Test, astral::bench::Fixture& OutFixture, FString& OutDescription);

	/** True when Fixture is the reference `random` fixture, bit for bit. */
	bool IsReferenceFixture(const astral::bench::Fixture& Fixture);

	/**
	 * A flat cosine index made by the Create Index node and filled with the
	 * fixture through astral.hpp (ids = rows, as `astral bench`). Null with
	 * an error added.
	 */
	UAstralIndex* MakeFixtureIndex(FAutomationTestBase& Test, const astral::bench::Fixture& Fixture);

	/** Adds an error for a failed astral.hpp call; run it on the thread that failed. */
	void AddStatusError(FAutomationTestBase& Test, const TCHAR* What, astral::Status Status);
}

#endif // WITH_DEV_AUTOMATION_TESTS
