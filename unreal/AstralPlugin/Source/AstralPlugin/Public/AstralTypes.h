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

/**
 * How an index stores each component of its vectors: memory against recall.
 * Int8 for one byte per component at near-F16 recall; E5M2 (the default)
 * for one byte without a per-vector scale; F16 or F32 when memory allows.
 */
UENUM(BlueprintType)
enum class EAstralStorage : uint8
{
	/** 8-bit float, one byte per component, no scale: the default. */
	E5M2,
	/** 8-bit float with a per-vector scale, one byte per component. */
	E4M3,
	/** Signed byte with a per-vector scale: the most accurate one-byte kind, near F16's recall. */
	Int8,
	/** 16-bit float, two bytes per component. */
	F16,
	/** 32-bit float, four bytes per component: exact. */
	F32,
};

/**
 * A second copy of every vector, wider than the searched one, that each query
 * rescores its best K x Rerank Factor candidates against: over a one-byte
 * storage kind, F16 or F32 with the default factor 4 recovers the exact ranking.
 */
UENUM(BlueprintType)
enum class EAstralRerank : uint8
{
	/** No second copy. */
	None,
	/** A 16-bit float copy: two more bytes per component. */
	F16,
	/** A 32-bit float copy: four more bytes per component; exact scores. */
	F32,
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

	/** How the searched vectors are stored. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	EAstralStorage Storage = EAstralStorage::E5M2;

	/** The rescoring copy, if any. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	EAstralRerank Rerank = EAstralRerank::None;

	/** Candidates per result rescored against the copy; 0 without one. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	int32 RerankFactor = 0;

	/** Runtime workers serving queries; the calling thread works too and is not counted. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	int32 WorkerCount = 0;

	/** Memory held by vectors, ids and per-vector data. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	int64 Bytes = 0;

	/** What one more vector costs, in bytes: its record, scale, id and rerank copy. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	double BytesPerVector = 0.0;

	/** The scan kernel, e.g. "avx2/fixed384". */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	FString Kernel;
};
