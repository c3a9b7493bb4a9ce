// Project settings of the Astral plugin (Project Settings > Plugins > Astral).

#pragma once

#include "CoreMinimal.h"
#include "Engine/DeveloperSettings.h"
#include "AstralSettings.generated.h"

/**
 * Read once, when the module starts: changes apply after a restart. Saved in
 * the project's DefaultGame.ini.
 */
UCLASS(config = Game, defaultconfig, meta = (DisplayName = "Astral"))
class ASTRALPLUGIN_API UAstralSettings : public UDeveloperSettings
{
	GENERATED_BODY()

public:
	/**
	 * Runtime workers, not counting the thread that calls a query, which always
	 * scans a share itself. Workers + caller must fit in the cores the game
	 * leaves free: with 4 spare cores use 3. -1 = usable CPUs - 1; 0 = serial.
	 */
	UPROPERTY(config, EditAnywhere, Category = "Threads", meta = (ClampMin = "-1", ClampMax = "256", ConfigRestartRequired = true))
	int32 WorkerCount = 3;

	/** Pin each worker to one CPU. Linux only; elsewhere it is ignored with a warning. */
	UPROPERTY(config, EditAnywhere, Category = "Threads", meta = (ConfigRestartRequired = true))
	bool bPinWorkers = false;

	/** CPUs to pin to: worker i runs on PinnedCpus[i % count]. Empty = every usable CPU. */
	UPROPERTY(config, EditAnywhere, Category = "Threads", meta = (EditCondition = "bPinWorkers", ConfigRestartRequired = true))
	TArray<int32> PinnedCpus;

	/**
	 * Most threads running the library's Go code at once (Go's GOMAXPROCS), which
	 * also bounds the Go garbage collector's threads: at least Worker Count + 1.
	 * 0 = the library's default: every usable CPU, or the GOMAXPROCS environment
	 * variable the game was started with. Worker Count + 2 leaves room for one
	 * Find Nearest (Async) beside a game-thread query.
	 */
	UPROPERTY(config, EditAnywhere, Category = "Threads", meta = (ClampMin = "0", ClampMax = "1024", ConfigRestartRequired = true))
	int32 MaxGoProcs = 0;

	/** MiB of vectors up to which an Auto index stays exact (flat). 0 = the library's default, 16 MiB. */
	UPROPERTY(config, EditAnywhere, Category = "Indexes", meta = (ClampMin = "0", ClampMax = "65536"))
	int32 FlatLimitMiB = 0;

	virtual FName GetCategoryName() const override;
};
