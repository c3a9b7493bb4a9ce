// Blueprint-facing value types of the Astral plugin.

#pragma once

#include "CoreMinimal.h"
#include "AstralTypes.generated.h"

/** How an index compares vectors. */
UENUM(BlueprintType)
enum class EAstralMetric : uint8
{
	/** Cosine similarity, higher is closer; vectors are normalized when stored. */
	Cosine,
	/** Inner product, higher is closer. */
	Dot,
	/** Squared Euclidean distance, lower is closer. */
	L2 UMETA(DisplayName = "L2 (squared)"),
};

/** The structure an index searches. */
UENUM(BlueprintType)
enum class EAstralIndexKind : uint8
{
	/** Exact while the vectors fit the Flat Limit of the project settings, a graph above. */
	Auto,
	/** Exact scan of every vector. */
	Flat,
	/** Graph search; this version of libastral refuses it. */
	Hnsw UMETA(DisplayName = "HNSW"),
};

/** One hit of a query. Same layout as the C ABI's AstralResult, so queries write straight into arrays of it. */
USTRUCT(BlueprintType)
struct ASTRALPLUGIN_API FAstralResult
{
	GENERATED_BODY()

	/** The id the vector was added under. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	int64 Id = 0;

	/** Its score under the index's metric. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	float Score = 0.0f;
};

/** What an index holds and how it searches. */
USTRUCT(BlueprintType)
struct ASTRALPLUGIN_API FAstralStats
{
	GENERATED_BODY()

	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	int32 Dimension = 0;

	/** Vectors stored. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	int64 Count = 0;

	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	EAstralMetric Metric = EAstralMetric::Cosine;

	/** The structure in use: Flat or Hnsw, never Auto. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	EAstralIndexKind Kind = EAstralIndexKind::Flat;

	/** Runtime workers serving queries; the calling thread works too and is not counted. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	int32 WorkerCount = 0;

	/** Memory held by vectors, ids and per-vector data. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	int64 Bytes = 0;

	/** What one more vector costs, in bytes. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	double BytesPerVector = 0.0;

	/** The scan kernel, e.g. "avx2/fixed384". */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	FString Kernel;
};
