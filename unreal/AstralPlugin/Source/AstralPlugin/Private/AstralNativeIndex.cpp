#include "AstralNativeIndex.h"

#include "Async/Async.h"
#include "Tasks/Task.h"

#include <cstddef>

// Query results are written by libastral straight into TArray<FAstralResult>:
// the two layouts must match. (Id is read back as int64, the same 64 bits.)
static_assert(sizeof(FAstralResult) == sizeof(AstralResult), "FAstralResult must match AstralResult");
static_assert(alignof(FAstralResult) == alignof(AstralResult), "FAstralResult must match AstralResult");
static_assert(offsetof(FAstralResult, Id) == offsetof(AstralResult, id), "FAstralResult must match AstralResult");
static_assert(offsetof(FAstralResult, Score) == offsetof(AstralResult, score), "FAstralResult must match AstralResult");
// Query counts are written as uint32 into TArray<int32>; they never exceed ASTRAL_MAX_K.
static_assert(sizeof(int32) == sizeof(uint32_t), "counts are 32-bit");

namespace UE::Astral::NativeIndex
{
	static AstralResult* AsNativeResults(FAstralResult* Results)
	{
		return reinterpret_cast<AstralResult*>(Results);
	}

	/** The index Fill makes (create or a load), or null with OutError set. */
	template <typename FFill>
	static TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Make(const TCHAR* What, FString& OutError, FFill&& Fill)
	{
		// An astral::Index calls through the table even when destroyed empty.
		if (!IsAvailable())
		{
			Fail(OutError, NotAvailableMessage(What));
			return nullptr;
		}
		astral::Index Made;
		const astral::Status Status = Fill(Made);
		if (!Status)
		{
			Fail(OutError, DescribeFailure(What, Status.code()));
			return nullptr;
		}
		return MakeShared<FAstralNativeIndex, ESPMode::ThreadSafe>(MoveTemp(Made));
	}

	static bool CheckK(int32 K, const TCHAR* What, FString& OutError)
	{
		if (K < 1 || K > ASTRAL_MAX_K)
		{
			return Fail(OutError, FString::Printf(TEXT("Astral %s: K is %d, not 1 to %d"), What, K, ASTRAL_MAX_K));
		}
		return true;
	}
}

FAstralNativeIndex::FAstralNativeIndex(astral::Index&& InIndex)
	: Index(MoveTemp(InIndex))
{
	check(Index.valid());
}

TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> FAstralNativeIndex::Create(const AstralIndexOptions& Options, FString& OutError)
{
	return UE::Astral::NativeIndex::Make(TEXT("Create Index"), OutError,
		[&Options](astral::Index& Out) { return astral::Index::create(Options, Out); });
}

TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> FAstralNativeIndex::LoadFromFile(const FString& Path, bool bVerifyInBackground, FString& OutError)
{
	// libastral takes UTF-8 paths on every platform, Windows included.
	const FTCHARToUTF8 Utf8Path(*Path);
	const uint32_t Flags = bVerifyInBackground ? ASTRAL_LOAD_VERIFY_IN_BACKGROUND : 0u;
	// The dimension comes from the file, read by astral.hpp as it adopts the handle.
	return UE::Astral::NativeIndex::Make(TEXT("Load Index From File"), OutError,
		[&Utf8Path, Flags](astral::Index& Out) { return astral::Index::load(Utf8Path.Get(), Out, Flags); });
}

TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> FAstralNativeIndex::LoadFromBytes(const TArray<uint8>& Bytes, FString& OutError)
{
	// Empty or short Bytes are CORRUPT to libastral, like any other damage.
	return UE::Astral::NativeIndex::Make(TEXT("Load Index From Bytes"), OutError,
		[&Bytes](astral::Index& Out) { return astral::Index::load_from_memory(Bytes.GetData(), static_cast<size_t>(Bytes.Num()), Out); });
}

int32 FAstralNativeIndex::GetDimension() const
{
	return static_cast<int32>(Index.dimension());
}

bool FAstralNativeIndex::Add(const TArray<uint64_t>& Ids, const TArray<float>& Vectors, FString& OutError)
{
	return AddRows(astral::Span<const uint64_t>(Ids.GetData(), static_cast<size_t>(Ids.Num())), Vectors, OutError);
}

bool FAstralNativeIndex::Add(uint64_t Id, const TArray<float>& Vector, FString& OutError)
{
	return AddRows(astral::Span<const uint64_t>(&Id, 1), Vector, OutError);
}

bool FAstralNativeIndex::AddRows(astral::Span<const uint64_t> Ids, const TArray<float>& Vectors, FString& OutError)
{
	const astral::Status Status = Index.add(Ids, astral::Span<const float>(Vectors.GetData(), static_cast<size_t>(Vectors.Num())));
	return Status ? true : UE::Astral::Fail(OutError, UE::Astral::DescribeFailure(TEXT("Add"), Status.code()));
}

bool FAstralNativeIndex::Remove(const TArray<uint64_t>& Ids, FString& OutError)
{
	const astral::Status Status = Index.remove(astral::Span<const uint64_t>(Ids.GetData(), static_cast<size_t>(Ids.Num())));
	return Status ? true : UE::Astral::Fail(OutError, UE::Astral::DescribeFailure(TEXT("Remove"), Status.code()));
}

bool FAstralNativeIndex::Query(const TArray<float>& Vector, int32 K, TArray<FAstralResult>& OutResults, FString& OutError) const
{
	OutResults.Reset();
	if (!UE::Astral::NativeIndex::CheckK(K, TEXT("Query"), OutError))
	{
		return false;
	}
	OutResults.SetNumUninitialized(K);
	uint32 Count = 0;
	const astral::Status Status = Index.query(
		astral::Span<const float>(Vector.GetData(), static_cast<size_t>(Vector.Num())),
		static_cast<uint32>(K),
		astral::Span<AstralResult>(UE::Astral::NativeIndex::AsNativeResults(OutResults.GetData()), static_cast<size_t>(K)),
		Count);
	if (!Status)
	{
		OutResults.Reset();
		return UE::Astral::Fail(OutError, UE::Astral::DescribeFailure(TEXT("Query"), Status.code()));
	}
	OutResults.SetNum(static_cast<int32>(Count), EAllowShrinking::No);
	return true;
}

bool FAstralNativeIndex::QueryBatch(const TArray<float>& Queries, int32 K, TArray<FAstralResult>& OutResults, TArray<int32>& OutCounts, FString& OutError) const
{
	OutResults.Reset();
	OutCounts.Reset();
	if (!UE::Astral::NativeIndex::CheckK(K, TEXT("Query Batch"), OutError))
	{
		return false;
	}
	const int32 Dimension = GetDimension();
	check(Dimension > 0); // Create and the loads both refuse dimension 0
	if (Queries.Num() % Dimension != 0)
	{
		return UE::Astral::Fail(OutError, FString::Printf(TEXT("Astral Query Batch: %d floats are not whole queries of dimension %d"), Queries.Num(), Dimension));
	}
	const int32 QueryCount = Queries.Num() / Dimension;
	const int64 Capacity = static_cast<int64>(QueryCount) * K;
	if (Capacity > MAX_int32)
	{
		return UE::Astral::Fail(OutError, FString::Printf(TEXT("Astral Query Batch: %d queries x K %d results do not fit an array"), QueryCount, K));
	}

	OutResults.SetNumUninitialized(static_cast<int32>(Capacity));
	OutCounts.SetNumUninitialized(QueryCount);
	const astral::Status Status = Index.query_batch(
		astral::Span<const float>(Queries.GetData(), static_cast<size_t>(Queries.Num())),
		static_cast<uint32>(K),
		astral::Span<AstralResult>(UE::Astral::NativeIndex::AsNativeResults(OutResults.GetData()), static_cast<size_t>(Capacity)),
		astral::Span<uint32_t>(reinterpret_cast<uint32_t*>(OutCounts.GetData()), static_cast<size_t>(QueryCount)));
	if (!Status)
	{
		OutResults.Reset();
		OutCounts.Reset();
		return UE::Astral::Fail(OutError, UE::Astral::DescribeFailure(TEXT("Query Batch"), Status.code()));
	}

	// Query i's hits start at i * K; close the gaps (only there when fewer
	// than K vectors are stored) so no unwritten entry reaches Blueprint.
	int32 Written = 0;
	for (int32 QueryIndex = 0; QueryIndex < QueryCount; ++QueryIndex)
	{
		const int32 Count = OutCounts[QueryIndex];
		check(Count >= 0 && Count <= K);
		for (int32 Hit = 0; Hit < Count; ++Hit)
		{
			OutResults[Written++] = OutResults[QueryIndex * K + Hit];
		}
	}
	OutResults.SetNum(Written, EAllowShrinking::No);
	return true;
}

bool FAstralNativeIndex::GetStats(FAstralStats& OutStats, FString& OutError) const
{
	AstralStats Stats;
	const astral::Status Status = Index.stats(Stats);
	if (!Status)
	{
		return UE::Astral::Fail(OutError, UE::Astral::DescribeFailure(TEXT("Get Stats"), Status.code()));
	}
	OutStats.Dimension = static_cast<int32>(Stats.dimension);
	OutStats.Count = static_cast<int64>(Stats.count);
	switch (Stats.metric)
	{
	case ASTRAL_METRIC_DOT:
		OutStats.Metric = EAstralMetric::Dot;
		break;
	case ASTRAL_METRIC_L2:
		OutStats.Metric = EAstralMetric::L2;
		break;
	default:
		OutStats.Metric = EAstralMetric::Cosine;
		break;
	}
	OutStats.Kind = Stats.kind == ASTRAL_KIND_HNSW ? EAstralIndexKind::Hnsw : EAstralIndexKind::Flat;
	switch (Stats.storage)
	{
	case ASTRAL_STORAGE_E4M3:
		OutStats.Storage = EAstralStorage::E4M3;
		break;
	case ASTRAL_STORAGE_INT8:
		OutStats.Storage = EAstralStorage::Int8;
		break;
	case ASTRAL_STORAGE_F16:
		OutStats.Storage = EAstralStorage::F16;
		break;
	case ASTRAL_STORAGE_F32:
		OutStats.Storage = EAstralStorage::F32;
		break;
	default:
		OutStats.Storage = EAstralStorage::E5M2;
		break;
	}
	OutStats.Rerank = Stats.rerank_storage == ASTRAL_STORAGE_F32 ? EAstralRerank::F32
		: Stats.rerank_storage == ASTRAL_STORAGE_F16 ? EAstralRerank::F16
		: EAstralRerank::None;
	OutStats.RerankFactor = static_cast<int32>(Stats.rerank_factor);
	OutStats.WorkerCount = static_cast<int32>(Stats.thread_count);
	OutStats.Bytes = static_cast<int64>(Stats.bytes);
	OutStats.BytesPerVector = Stats.bytes_per_vector;
	// kernel is NUL-terminated within its array (astral.h).
	OutStats.Kernel = UTF8_TO_TCHAR(Stats.kernel);
	return true;
}

bool FAstralNativeIndex::SaveToFile(const FString& Path, FString& OutError) const
{
	const FTCHARToUTF8 Utf8Path(*Path);
	const astral::Status Status = Index.save(Utf8Path.Get());
	return Status ? true : UE::Astral::Fail(OutError, UE::Astral::DescribeFailure(TEXT("Save Index To File"), Status.code()));
}

bool FAstralNativeIndex::SaveToBytes(TArray<uint8>& OutBytes, FString& OutError) const
{
	OutBytes.Reset();
	// Ask the size, then fill. Adds on other threads may grow the index in
	// between: each retry sizes to the new length, with room to spare.
	constexpr int32 MaxTries = 4;
	size_t Size = 0;
	astral::Status Status = Index.save(astral::Span<unsigned char>(), Size);
	for (int32 Try = 0; Try < MaxTries && Status.code() == ASTRAL_E_BUFFER_TOO_SMALL; ++Try)
	{
		// Blueprint arrays are int32-sized; bigger indexes must go to a file.
		const uint64 Spare = Try == 0 ? 0 : static_cast<uint64>(Size) / 8;
		if (static_cast<uint64>(Size) + Spare > static_cast<uint64>(MAX_int32))
		{
			return UE::Astral::Fail(OutError, FString::Printf(TEXT("Astral Save Index To Bytes: the index takes %llu bytes, more than a byte array holds; use Save Index To File"),
				static_cast<uint64>(Size)));
		}
		OutBytes.SetNumUninitialized(static_cast<int32>(Size + Spare));
		Status = Index.save(astral::Span<unsigned char>(OutBytes.GetData(), static_cast<size_t>(OutBytes.Num())), Size);
	}
	if (!Status)
	{
		OutBytes.Reset();
		return UE::Astral::Fail(OutError, UE::Astral::DescribeFailure(TEXT("Save Index To Bytes"), Status.code()));
	}
	check(Size <= static_cast<size_t>(OutBytes.Num()));
	OutBytes.SetNum(static_cast<int32>(Size));
	return true;
}

bool FAstralNativeIndex::Verify(FString& OutError) const
{
	const astral::Status Status = Index.verify_loaded();
	return Status ? true : UE::Astral::Fail(OutError, UE::Astral::DescribeFailure(TEXT("Verify Index"), Status.code()));
}

void FAstralNativeIndex::QueryAsync(const TSharedRef<FAstralNativeIndex, ESPMode::ThreadSafe>& Self, TArray<float> Vector, int32 K, FAstralQueryCallback OnGameThread)
{
	UE::Tasks::Launch(TEXT("AstralQueryAsync"),
		[Self, Vector = MoveTemp(Vector), K, OnGameThread = MoveTemp(OnGameThread)]() mutable
		{
			TArray<FAstralResult> Results;
			FString Error;
			// The failure message is per thread: Query reads it here, on the worker.
			const bool bSuccess = Self->Query(Vector, K, Results, Error);
			AsyncTask(ENamedThreads::GameThread,
				[bSuccess, Results = MoveTemp(Results), Error = MoveTemp(Error), OnGameThread = MoveTemp(OnGameThread)]() mutable
				{
					OnGameThread(bSuccess, MoveTemp(Results), MoveTemp(Error));
				});
		});
}
