#include "AstralBlueprintLibrary.h"

#include "AstralBlueprintHelpers.h"
#include "AstralIndex.h"
#include "AstralNativeIndex.h"
#include "AstralSettings.h"
#include "HAL/FileManager.h"
#include "Misc/Paths.h"
#include "UObject/Package.h"

namespace UE::Astral::BlueprintLibrary
{
	/** The native index behind Index, or null with OutError set. */
	TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> GetNative(const UAstralIndex* Index, const TCHAR* Node, FString& OutError)
	{
		if (Index == nullptr)
		{
			Fail(OutError, FString::Printf(TEXT("Astral %s: Index is None"), Node));
			return nullptr;
		}
		TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = Index->GetNative();
		if (!Native.IsValid())
		{
			Fail(OutError, FString::Printf(TEXT("Astral %s: Index was not made by Create Index or a Load Index node"), Node));
		}
		return Native;
	}

	/** A Blueprint handle on a native index just made. */
	UAstralIndex* NewIndex(const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe>& Native)
	{
		UAstralIndex* Index = NewObject<UAstralIndex>(GetTransientPackage());
		Index->Initialize(Native.ToSharedRef());
		return Index;
	}

	/**
	 * FilePath made full: a relative one is taken under the project's Saved
	 * folder, since libastral would resolve it against the working directory,
	 * which is not the project's. False with OutError set when it is empty.
	 */
	bool ResolvePath(const FString& FilePath, const TCHAR* Node, FString& OutPath, FString& OutError)
	{
		if (FilePath.IsEmpty())
		{
			return Fail(OutError, FString::Printf(TEXT("Astral %s: File Path is empty"), Node));
		}
		OutPath = FPaths::IsRelative(FilePath)
			? FPaths::Combine(FPaths::ConvertRelativePathToFull(FPaths::ProjectSavedDir()), FilePath)
			: FilePath;
		return true;
	}

	bool MakeFolderFor(const FString& Path, const TCHAR* Node, FString& OutError)
	{
		// libastral writes a temporary file beside Path: the folder must exist.
		const FString Folder = FPaths::GetPath(Path);
		if (!Folder.IsEmpty() && !IFileManager::Get().MakeDirectory(*Folder, true))
		{
			return Fail(OutError, FString::Printf(TEXT("Astral %s: cannot create the folder %s"), Node, *Folder));
		}
		return true;
	}

	/** Blueprint has no uint64: ids travel as int64 and keep their 64 bits. */
	TArray<uint64_t> ToNativeIds(const TArray<int64>& Ids)
	{
		TArray<uint64_t> Native;
		Native.SetNumUninitialized(Ids.Num());
		for (int32 Index = 0; Index < Ids.Num(); ++Index)
		{
			Native[Index] = static_cast<uint64_t>(Ids[Index]);
		}
		return Native;
	}

	static uint32 ToNativeMetric(EAstralMetric Metric)
	{
		switch (Metric)
		{
		case EAstralMetric::Dot:
			return ASTRAL_METRIC_DOT;
		case EAstralMetric::L2:
			return ASTRAL_METRIC_L2;
		case EAstralMetric::Cosine:
		default:
			return ASTRAL_METRIC_COSINE;
		}
	}

	static uint32 ToNativeStorage(EAstralStorage Storage)
	{
		switch (Storage)
		{
		case EAstralStorage::E4M3:
			return ASTRAL_STORAGE_E4M3;
		case EAstralStorage::Int8:
			return ASTRAL_STORAGE_INT8;
		case EAstralStorage::F16:
			return ASTRAL_STORAGE_F16;
		case EAstralStorage::F32:
			return ASTRAL_STORAGE_F32;
		case EAstralStorage::E5M2:
		default:
			return ASTRAL_STORAGE_E5M2;
		}
	}

	/** 0 for None: the index keeps no second copy. */
	static uint32 ToNativeRerank(EAstralRerank Rerank)
	{
		switch (Rerank)
		{
		case EAstralRerank::F16:
			return ASTRAL_STORAGE_F16;
		case EAstralRerank::F32:
			return ASTRAL_STORAGE_F32;
		case EAstralRerank::None:
		default:
			return 0;
		}
	}

	static uint32 ToNativeKind(EAstralIndexKind Kind)
	{
		switch (Kind)
		{
		case EAstralIndexKind::Flat:
			return ASTRAL_KIND_FLAT;
		case EAstralIndexKind::Hnsw:
			return ASTRAL_KIND_HNSW;
		case EAstralIndexKind::Auto:
		default:
			return ASTRAL_KIND_AUTO;
		}
	}
}

bool UAstralBlueprintLibrary::CreateIndex(int32 Dimension, EAstralMetric Metric, EAstralIndexKind Kind, UAstralIndex*& Index, FString& Error,
	EAstralStorage Storage, EAstralRerank Rerank, int32 RerankFactor)
{
	using namespace UE::Astral::BlueprintLibrary;
	Index = nullptr;
	Error.Reset();
	// libastral checks the range too; a negative value must not wrap to a valid one.
	if (Dimension < 1 || Dimension > ASTRAL_MAX_DIMENSION)
	{
		return UE::Astral::Fail(Error, FString::Printf(TEXT("Astral Create Index: Dimension is %d, not 1 to %d"), Dimension, ASTRAL_MAX_DIMENSION));
	}

	// The factor only means something with a copy: the node's default 4 must
	// not make an index without one fail.
	const bool bRerank = Rerank != EAstralRerank::None;
	if (bRerank && (RerankFactor < 0 || RerankFactor > static_cast<int32>(ASTRAL_MAX_RERANK_FACTOR)))
	{
		return UE::Astral::Fail(Error, FString::Printf(TEXT("Astral Create Index: Rerank Factor is %d, not 1 to %d (0 for %d)"),
			RerankFactor, static_cast<int32>(ASTRAL_MAX_RERANK_FACTOR), static_cast<int32>(ASTRAL_DEFAULT_RERANK_FACTOR)));
	}

	AstralIndexOptions Options = astral::IndexOptions(static_cast<uint32>(Dimension))
		.metric(ToNativeMetric(Metric))
		.kind(ToNativeKind(Kind))
		.storage(ToNativeStorage(Storage))
		.rerank(ToNativeRerank(Rerank), bRerank ? static_cast<uint32>(RerankFactor) : 0u)
		.flat_limit_bytes(static_cast<uint64_t>(FMath::Max(0, GetDefault<UAstralSettings>()->FlatLimitMiB)) << 20);

	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = FAstralNativeIndex::Create(Options, Error);
	if (!Native.IsValid())
	{
		return false;
	}
	Index = NewIndex(Native);
	return true;
}

bool UAstralBlueprintLibrary::Add(UAstralIndex* Index, int64 Id, const TArray<float>& Vector, FString& Error)
{
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Add"), Error);
	if (!Native.IsValid())
	{
		return false;
	}
	return Native->Add(static_cast<uint64_t>(Id), Vector, Error);
}

bool UAstralBlueprintLibrary::AddBatch(UAstralIndex* Index, const TArray<int64>& Ids, const TArray<float>& Vectors, FString& Error)
{
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Add Batch"), Error);
	if (!Native.IsValid())
	{
		return false;
	}
	return Native->Add(UE::Astral::BlueprintLibrary::ToNativeIds(Ids), Vectors, Error);
}

bool UAstralBlueprintLibrary::Remove(UAstralIndex* Index, const TArray<int64>& Ids, FString& Error)
{
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Remove"), Error);
	if (!Native.IsValid())
	{
		return false;
	}
	return Native->Remove(UE::Astral::BlueprintLibrary::ToNativeIds(Ids), Error);
}

bool UAstralBlueprintLibrary::Query(UAstralIndex* Index, const TArray<float>& Vector, int32 K, TArray<FAstralResult>& Results, FString& Error)
{
	Results.Reset();
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Query"), Error);
	if (!Native.IsValid())
	{
		return false;
	}
	return Native->Query(Vector, K, Results, Error);
}

bool UAstralBlueprintLibrary::QueryBatch(UAstralIndex* Index, const TArray<float>& Queries, int32 K, TArray<FAstralResult>& Results, TArray<int32>& Counts, FString& Error)
{
	Results.Reset();
	Counts.Reset();
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Query Batch"), Error);
	if (!Native.IsValid())
	{
		return false;
	}
	return Native->QueryBatch(Queries, K, Results, Counts, Error);
}

bool UAstralBlueprintLibrary::GetStats(UAstralIndex* Index, FAstralStats& Stats, FString& Error)
{
	Stats = FAstralStats();
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Get Stats"), Error);
	if (!Native.IsValid())
	{
		return false;
	}
	return Native->GetStats(Stats, Error);
}

bool UAstralBlueprintLibrary::SaveIndexToFile(UAstralIndex* Index, const FString& FilePath, FString& Error)
{
	using namespace UE::Astral::BlueprintLibrary;
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = GetNative(Index, TEXT("Save Index To File"), Error);
	FString Path;
	if (!Native.IsValid() || !ResolvePath(FilePath, TEXT("Save Index To File"), Path, Error))
	{
		return false;
	}
	return MakeFolderFor(Path, TEXT("Save Index To File"), Error) && Native->SaveToFile(Path, Error);
}

bool UAstralBlueprintLibrary::SaveIndexToBytes(UAstralIndex* Index, TArray<uint8>& Bytes, FString& Error)
{
	Bytes.Reset();
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Save Index To Bytes"), Error);
	if (!Native.IsValid())
	{
		return false;
	}
	return Native->SaveToBytes(Bytes, Error);
}

bool UAstralBlueprintLibrary::LoadIndexFromFile(const FString& FilePath, UAstralIndex*& Index, FString& Error, bool bVerifyInBackground)
{
	using namespace UE::Astral::BlueprintLibrary;
	Index = nullptr;
	Error.Reset();
	FString Path;
	if (!ResolvePath(FilePath, TEXT("Load Index From File"), Path, Error))
	{
		return false;
	}
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = FAstralNativeIndex::LoadFromFile(Path, bVerifyInBackground, Error);
	if (!Native.IsValid())
	{
		return false;
	}
	Index = NewIndex(Native);
	return true;
}

bool UAstralBlueprintLibrary::LoadIndexFromBytes(const TArray<uint8>& Bytes, UAstralIndex*& Index, FString& Error)
{
	Index = nullptr;
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = FAstralNativeIndex::LoadFromBytes(Bytes, Error);
	if (!Native.IsValid())
	{
		return false;
	}
	Index = UE::Astral::BlueprintLibrary::NewIndex(Native);
	return true;
}

bool UAstralBlueprintLibrary::VerifyIndex(UAstralIndex* Index, FString& Error)
{
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Verify Index"), Error);
	if (!Native.IsValid())
	{
		return false;
	}
	return Native->Verify(Error);
}

bool UAstralBlueprintLibrary::IsAstralAvailable()
{
	return UE::Astral::IsAvailable();
}
