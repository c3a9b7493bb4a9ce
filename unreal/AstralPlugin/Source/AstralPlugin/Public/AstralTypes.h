// Blueprint-facing value types of the Astral plugin.

#pragma once

#include "CoreMinimal.h"
#include "GameplayTagContainer.h"
#include "AstralTypes.generated.h"

/**
 * How a node that can fail ended. Its entries name the node's exec pins
 * (ExpandEnumAsExecs on the return value); C++ compares the return value
 * with EAstralOutcome::Success.
 */
UENUM(BlueprintType)
enum class EAstralOutcome : uint8
{
	/** The node did what it says; its outputs are set. */
	Success,
	/** It failed: Error says why, and LogAstral logged the same text as a warning. */
	Failure,
};

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
	/** Exact while the vectors fit the flat limit, then a graph (HNSW) from there on. */
	Auto,
	/** Exact scan of every vector. */
	Flat,
	/** Graph search: approximate, for indexes too large to scan within a frame. */
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

/**
 * How to build an index: Create Index's settings, every one validated by
 * libastral. The defaults make a flat-then-graph (Auto) cosine index with
 * one byte per component and no rescoring copy.
 */
USTRUCT(BlueprintType)
struct ASTRALPLUGIN_API FAstralIndexOptions
{
	GENERATED_BODY()

	/** Flat (exact), HNSW (graph) or Auto (flat up to Flat Limit MiB, then HNSW). */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	EAstralIndexKind Kind = EAstralIndexKind::Auto;

	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	EAstralMetric Metric = EAstralMetric::Cosine;

	/** How each component is kept: Int8 for one byte at near-F16 recall, E5M2 the default, F16/F32 when memory allows. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	EAstralStorage Storage = EAstralStorage::E5M2;

	/** A second F16 or F32 copy each query rescores its K x Rerank Factor best candidates against. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	EAstralRerank Rerank = EAstralRerank::None;

	/** Candidates per result rescored against the copy: 1 to 64, 0 = 4. Ignored when Rerank is None. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral", meta = (ClampMin = "0", ClampMax = "64"))
	int32 RerankFactor = 4;

	/** HNSW links per node on upper levels (twice that on the lowest): 2 to 128, 0 = 16. Checked for Auto too. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral|HNSW", meta = (ClampMin = "0", ClampMax = "128"))
	int32 HnswM = 0;

	/** HNSW build beam width: HNSW M to 4096, 0 = 200. Wider builds slower and finds more. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral|HNSW", meta = (ClampMin = "0", ClampMax = "4096"))
	int32 HnswEfConstruction = 0;

	/** HNSW query beam width: 1 to 4096, 0 = 128 (at least K is used). Wider: more recall, more time. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral|HNSW", meta = (ClampMin = "0", ClampMax = "4096"))
	int32 HnswEfSearch = 0;

	/** MiB of vectors up to which an Auto index stays flat. 0 = the project settings' Flat Limit MiB. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral", meta = (ClampMin = "0", ClampMax = "65536"))
	int32 FlatLimitMiB = 0;
};

/** One vector: an element of the batch nodes' arrays (Blueprint has no array of arrays). */
USTRUCT(BlueprintType)
struct ASTRALPLUGIN_API FAstralVector
{
	GENERATED_BODY()

	/** The index's Dimension floats. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	TArray<float> Values;
};

/**
 * One memory to store: its vector and what a query can filter on or get
 * back. Tags and Gameplay Tags together name the record's tags (the index
 * holds 64 distinct names); Owner 0 is none; Payload travels as UTF-8, up
 * to 4,096 bytes. Time and Importance are what Recall Memories ranks by
 * beside similarity.
 */
USTRUCT(BlueprintType)
struct ASTRALPLUGIN_API FAstralMemory
{
	GENERATED_BODY()

	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	int64 Id = 0;

	/** The index's Dimension floats. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	TArray<float> Vector;

	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	TArray<FName> Tags;

	/** Each tag's full name (e.g. "Memory.Threat") is a tag name like those in Tags. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	FGameplayTagContainer GameplayTags;

	/** The group it belongs to, e.g. Make Owner Key of the character remembering it; 0 = none. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	int64 Owner = 0;

	/** Returned with every hit on it: the memory's text, a row name, a key. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	FString Payload;

	/**
	 * When it was formed or last used, on the game's own clock: the game
	 * picks the unit (seconds of game time, frame ticks, turns) and uses the
	 * same one for Touch Memories, Recall Memories' Now and its Half Life.
	 */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	int64 Time = 0;

	/** How much it matters, weighed by Recall Memories; 0 to 1 keeps it on the scale of a cosine similarity. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	float Importance = 0.0f;
};

/**
 * How Recall Memories ranks: each memory scores Relevance x similarity +
 * Recency x 0.5^((Now - Time) / Half Life) + Importance x its Importance,
 * and the K best scores win. With Recency and Importance 0 it is Find
 * Nearest. Weights are 0 or above. The defaults weigh the three terms
 * alike, as the generative agents' memory retrieval does.
 */
USTRUCT(BlueprintType)
struct ASTRALPLUGIN_API FAstralRecallWeights
{
	GENERATED_BODY()

	/** Weight of the similarity to the query (the index's metric score: Cosine or Dot). */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral", meta = (ClampMin = "0"))
	float Relevance = 1.0f;

	/** Weight of how recent the memory is: 1 at Now, halving every Half Life. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral", meta = (ClampMin = "0"))
	float Recency = 1.0f;

	/** Weight of the memory's Importance. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral", meta = (ClampMin = "0"))
	float Importance = 1.0f;

	/**
	 * Time after which recency has halved, in the unit of the memories'
	 * Time (3600: an hour when Time counts seconds). Above 0 whenever
	 * Recency is not 0.
	 */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral", meta = (ClampMin = "0"))
	double HalfLife = 3600.0;
};

/**
 * Which records a query may return: every condition set must hold. The
 * default filter lets every record through. A tag name the index never
 * defined is held by no record: in All Tags it matches nothing, in Any Tags
 * it adds nothing, in No Tags it excludes nothing. None is ignored.
 */
USTRUCT(BlueprintType)
struct ASTRALPLUGIN_API FAstralQueryFilter
{
	GENERATED_BODY()

	/** Only records of this owner; 0 = any owner. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	int64 Owner = 0;

	/** Only records holding every one of these. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	TArray<FName> AllTags;

	/** Only records holding at least one of these (no condition when empty). */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	TArray<FName> AnyTags;

	/** Only records holding none of these. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	TArray<FName> NoTags;

	/** As All Tags, by Gameplay Tag (its full name). */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	FGameplayTagContainer AllGameplayTags;

	/** As Any Tags, by Gameplay Tag. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	FGameplayTagContainer AnyGameplayTags;

	/** As No Tags, by Gameplay Tag. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	FGameplayTagContainer NoGameplayTags;

	/** Only these ids, when Use Allow List is set (then an empty list matches nothing). */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	TArray<int64> Allow;

	/** Whether Allow is a condition; off, Allow is ignored. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	bool bUseAllowList = false;

	/** Never these ids, e.g. the asking character's own memories. */
	UPROPERTY(EditAnywhere, BlueprintReadWrite, Category = "Astral")
	TArray<int64> Deny;
};

/** One hit of a query. */
USTRUCT(BlueprintType)
struct ASTRALPLUGIN_API FAstralResult
{
	GENERATED_BODY()

	/** The id the vector was added under. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	int64 Id = 0;

	/** Its score under the index's metric; from Recall Memories, the weighted sum it was ranked by. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	float Score = 0.0f;

	/** The payload stored with it (empty if none, or if the query was asked for none). */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	FString Payload;
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

	/** Memory held by vectors, ids and per-vector data (payloads not counted). */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	int64 Bytes = 0;

	/** Records holding a payload, and those payloads' bytes. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	int64 PayloadCount = 0;

	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	int64 PayloadBytes = 0;

	/** Distinct owners (not 0) among the records. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	int64 OwnerCount = 0;

	/** Tag bits with a name (Define Tag, or given to a new name by an add). */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	int32 TagNameCount = 0;

	/** What one more vector costs, in bytes: its record, scale, id and rerank copy. */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	double BytesPerVector = 0.0;

	/** The scan kernel, e.g. "avx2/fixed384". */
	UPROPERTY(BlueprintReadOnly, Category = "Astral")
	FString Kernel;
};
