#include "AstralBlueprintLibrary.h"

#include "AstralApi.h"
#include "AstralBlueprintHelpers.h"
#include "AstralIndex.h"
#include "AstralNativeIndex.h"
#include "AstralSettings.h"
#include "HAL/FileManager.h"
#include "Misc/Paths.h"
#include "UObject/Package.h"

namespace UE::Astral::BlueprintLibrary
{
	/** The native index behind Index, or null with OutError set. Game thread. */
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
			Fail(OutError, Index->IsReleased()
				? FString::Printf(TEXT("Astral %s: Index was released (Release Index)"), Node)
				: FString::Printf(TEXT("Astral %s: Index was not made by Create Index or a Load Index node"), Node));
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

}


namespace UE::Astral::BlueprintLibrary
{
	/** The exec pin a node leaves by. */
	static EAstralOutcome Outcome(bool bSucceeded)
	{
		return bSucceeded ? EAstralOutcome::Success : EAstralOutcome::Failure;
	}

	/** One memory from a node's pins. */
	static FAstralMemory MakeMemory(int64 Id, const TArray<float>& Vector, const TArray<FName>& Tags, const FGameplayTagContainer& GameplayTags,
		int64 Owner, const FString& Payload, int64 Time, float Importance)
	{
		FAstralMemory Memory;
		Memory.Id = Id;
		Memory.Vector = Vector;
		Memory.Tags = Tags;
		Memory.GameplayTags = GameplayTags;
		Memory.Owner = Owner;
		Memory.Payload = Payload;
		Memory.Time = Time;
		Memory.Importance = Importance;
		return Memory;
	}

	/** A query node's ids, results and coverage; bComplete and Covered as for an unbudgeted query on failure. */
	static EAstralOutcome SearchNode(UAstralIndex* Index, const TCHAR* Node, const TArray<float>& Vector, int32 K, const FAstralQueryFilter& Filter,
		const FAstralSearchSettings& Settings, bool bIncludePayloads, TArray<FAstralResult>& Results, bool& bComplete, float& Covered, FString& Error)
	{
		Results.Reset();
		Error.Reset();
		FAstralSearchCoverage Coverage;
		const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = GetNative(Index, Node, Error);
		const bool bSucceeded = Native.IsValid() && Native->Search(Vector, K, Filter, Settings, bIncludePayloads, Results, Coverage, Error);
		bComplete = Coverage.bComplete;
		Covered = Coverage.Covered;
		return Outcome(bSucceeded);
	}
}

EAstralOutcome UAstralBlueprintLibrary::CreateIndex(int32 Dimension, const FAstralIndexOptions& Options, UAstralIndex*& Index, FString& Error)
{
	using namespace UE::Astral::BlueprintLibrary;
	Index = nullptr;
	Error.Reset();
	FAstralIndexOptions Resolved = Options;
	if (Resolved.FlatLimitMiB == 0)
	{
		Resolved.FlatLimitMiB = FMath::Max(0, GetDefault<UAstralSettings>()->FlatLimitMiB);
	}
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = FAstralNativeIndex::Create(Dimension, Resolved, Error);
	if (!Native.IsValid())
	{
		return EAstralOutcome::Failure;
	}
	Index = NewIndex(Native);
	return EAstralOutcome::Success;
}

EAstralOutcome UAstralBlueprintLibrary::AddVector(UAstralIndex* Index, int64 Id, const TArray<float>& Vector, FString& Error)
{
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Add Vector"), Error);
	return UE::Astral::BlueprintLibrary::Outcome(Native.IsValid() && Native->Add(static_cast<uint64_t>(Id), Vector, Error));
}

EAstralOutcome UAstralBlueprintLibrary::AddMemory(UAstralIndex* Index, int64 Id, const TArray<float>& Vector, const TArray<FName>& Tags,
	const FGameplayTagContainer& GameplayTags, int64 Owner, const FString& Payload, FString& Error, int64 Time, float Importance)
{
	using namespace UE::Astral::BlueprintLibrary;
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = GetNative(Index, TEXT("Add Memory"), Error);
	if (!Native.IsValid())
	{
		return EAstralOutcome::Failure;
	}
	const FAstralMemory Memory = MakeMemory(Id, Vector, Tags, GameplayTags, Owner, Payload, Time, Importance);
	return Outcome(Native->AddMemories(&Memory, 1, false, TEXT("Add Memory"), Error));
}

EAstralOutcome UAstralBlueprintLibrary::AddMemories(UAstralIndex* Index, const TArray<FAstralMemory>& Memories, FString& Error)
{
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Add Memories"), Error);
	return UE::Astral::BlueprintLibrary::Outcome(Native.IsValid() && Native->AddMemories(Memories.GetData(), Memories.Num(), false, TEXT("Add Memories"), Error));
}

EAstralOutcome UAstralBlueprintLibrary::UpsertMemory(UAstralIndex* Index, int64 Id, const TArray<float>& Vector, const TArray<FName>& Tags,
	const FGameplayTagContainer& GameplayTags, int64 Owner, const FString& Payload, FString& Error, int64 Time, float Importance)
{
	using namespace UE::Astral::BlueprintLibrary;
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = GetNative(Index, TEXT("Upsert Memory"), Error);
	if (!Native.IsValid())
	{
		return EAstralOutcome::Failure;
	}
	const FAstralMemory Memory = MakeMemory(Id, Vector, Tags, GameplayTags, Owner, Payload, Time, Importance);
	return Outcome(Native->AddMemories(&Memory, 1, true, TEXT("Upsert Memory"), Error));
}

EAstralOutcome UAstralBlueprintLibrary::TouchMemories(UAstralIndex* Index, const TArray<int64>& Ids, int64 Time, FString& Error)
{
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Touch Memories"), Error);
	return UE::Astral::BlueprintLibrary::Outcome(Native.IsValid() && Native->Touch(UE::Astral::BlueprintLibrary::ToNativeIds(Ids), Time, Error));
}

EAstralOutcome UAstralBlueprintLibrary::SetMemoryImportance(UAstralIndex* Index, const TArray<int64>& Ids, float Importance, FString& Error)
{
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Set Memory Importance"), Error);
	return UE::Astral::BlueprintLibrary::Outcome(Native.IsValid() && Native->SetImportance(UE::Astral::BlueprintLibrary::ToNativeIds(Ids), Importance, Error));
}

EAstralOutcome UAstralBlueprintLibrary::SetMemoryTags(UAstralIndex* Index, int64 Id, const TArray<FName>& Tags, const FGameplayTagContainer& GameplayTags, FString& Error)
{
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Set Memory Tags"), Error);
	return UE::Astral::BlueprintLibrary::Outcome(Native.IsValid() && Native->SetTags(static_cast<uint64_t>(Id), Tags, GameplayTags, Error));
}

EAstralOutcome UAstralBlueprintLibrary::DefineTag(UAstralIndex* Index, FName Name, int32 Bit, FString& Error)
{
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Define Tag"), Error);
	return UE::Astral::BlueprintLibrary::Outcome(Native.IsValid() && Native->DefineTag(Name, Bit, Error));
}

EAstralOutcome UAstralBlueprintLibrary::RemoveMemory(UAstralIndex* Index, int64 Id, FString& Error)
{
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Remove Memory"), Error);
	return UE::Astral::BlueprintLibrary::Outcome(Native.IsValid() && Native->Remove(static_cast<uint64_t>(Id), Error));
}

EAstralOutcome UAstralBlueprintLibrary::RemoveMemories(UAstralIndex* Index, const TArray<int64>& Ids, FString& Error)
{
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Remove Memories"), Error);
	return UE::Astral::BlueprintLibrary::Outcome(Native.IsValid() && Native->Remove(UE::Astral::BlueprintLibrary::ToNativeIds(Ids), Error));
}

EAstralOutcome UAstralBlueprintLibrary::ClearIndex(UAstralIndex* Index, FString& Error)
{
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Clear Index"), Error);
	return UE::Astral::BlueprintLibrary::Outcome(Native.IsValid() && Native->Clear(Error));
}

EAstralOutcome UAstralBlueprintLibrary::ReleaseIndex(UAstralIndex* Index, FString& Error)
{
	Error.Reset();
	if (!UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Release Index"), Error).IsValid())
	{
		return EAstralOutcome::Failure;
	}
	Index->Release();
	return EAstralOutcome::Success;
}

int64 UAstralBlueprintLibrary::GetMemoryCount(UAstralIndex* Index)
{
	FString Error;
	int64 Count = 0;
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Memory Count"), Error);
	return Native.IsValid() && Native->Count(Count, Error) ? Count : 0;
}

bool UAstralBlueprintLibrary::ContainsMemory(UAstralIndex* Index, int64 Id)
{
	FString Error;
	bool bContains = false;
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Contains Memory"), Error);
	return Native.IsValid() && Native->Contains(static_cast<uint64_t>(Id), bContains, Error) && bContains;
}

EAstralOutcome UAstralBlueprintLibrary::GetMemoryVector(UAstralIndex* Index, int64 Id, TArray<float>& Vector, FString& Error)
{
	Vector.Reset();
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Get Memory Vector"), Error);
	return UE::Astral::BlueprintLibrary::Outcome(Native.IsValid() && Native->GetVector(static_cast<uint64_t>(Id), Vector, Error));
}

EAstralOutcome UAstralBlueprintLibrary::GetMemoryPayload(UAstralIndex* Index, int64 Id, FString& Payload, FString& Error)
{
	Payload.Reset();
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Get Memory Payload"), Error);
	return UE::Astral::BlueprintLibrary::Outcome(Native.IsValid() && Native->GetPayload(static_cast<uint64_t>(Id), Payload, Error));
}

EAstralOutcome UAstralBlueprintLibrary::GetMemoryTimeAndImportance(UAstralIndex* Index, int64 Id, int64& Time, float& Importance, FString& Error)
{
	Time = 0;
	Importance = 0.0f;
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Get Memory Time and Importance"), Error);
	return UE::Astral::BlueprintLibrary::Outcome(Native.IsValid() && Native->GetTimeAndImportance(static_cast<uint64_t>(Id), Time, Importance, Error));
}

EAstralOutcome UAstralBlueprintLibrary::GetStats(UAstralIndex* Index, FAstralStats& Stats, FString& Error)
{
	Stats = FAstralStats();
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Get Index Stats"), Error);
	return UE::Astral::BlueprintLibrary::Outcome(Native.IsValid() && Native->GetStats(Stats, Error));
}

int64 UAstralBlueprintLibrary::MakeOwnerKey(const UObject* Object)
{
	if (Object == nullptr)
	{
		return 0;
	}
	// FNV-1a over the path's UTF-8: the same bytes give the same key on every
	// platform and in every session.
	const FTCHARToUTF8 Path(*Object->GetPathName());
	uint64 Hash = 14695981039346656037ull;
	for (int32 Byte = 0; Byte < Path.Length(); ++Byte)
	{
		Hash = (Hash ^ static_cast<uint8>(Path.Get()[Byte])) * 1099511628211ull;
	}
	// 0 means "no owner" to every filter.
	return static_cast<int64>(Hash != 0 ? Hash : 1);
}

EAstralOutcome UAstralBlueprintLibrary::FindNearest(UAstralIndex* Index, const TArray<float>& Vector, int32 K, const FAstralQueryFilter& Filter,
	TArray<FAstralResult>& Results, bool& bComplete, float& Covered, FString& Error, bool bIncludePayloads, int32 BudgetMicroseconds)
{
	FAstralSearchSettings Settings;
	Settings.BudgetMicroseconds = BudgetMicroseconds;
	return UE::Astral::BlueprintLibrary::SearchNode(Index, TEXT("Find Nearest"), Vector, K, Filter, Settings, bIncludePayloads, Results, bComplete, Covered, Error);
}

EAstralOutcome UAstralBlueprintLibrary::RecallMemories(UAstralIndex* Index, const TArray<float>& Vector, int32 K, const FAstralQueryFilter& Filter,
	const FAstralRecallWeights& Weights, int64 Now, TArray<FAstralResult>& Results, bool& bComplete, float& Covered, FString& Error,
	bool bIncludePayloads, int32 BudgetMicroseconds)
{
	FAstralSearchSettings Settings;
	Settings.bRecall = true;
	Settings.Weights = Weights;
	Settings.Now = Now;
	Settings.BudgetMicroseconds = BudgetMicroseconds;
	return UE::Astral::BlueprintLibrary::SearchNode(Index, TEXT("Recall Memories"), Vector, K, Filter, Settings, bIncludePayloads, Results, bComplete, Covered, Error);
}

EAstralOutcome UAstralBlueprintLibrary::FindNearestBatch(UAstralIndex* Index, const TArray<FAstralVector>& Queries, int32 K, const FAstralQueryFilter& Filter,
	TArray<FAstralResult>& Results, TArray<int32>& Counts, FString& Error, bool bIncludePayloads)
{
	Results.Reset();
	Counts.Reset();
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Find Nearest (Batch)"), Error);
	return UE::Astral::BlueprintLibrary::Outcome(Native.IsValid() && Native->FindNearestBatch(Queries, K, Filter, bIncludePayloads, Results, Counts, Error));
}

EAstralOutcome UAstralBlueprintLibrary::SaveIndexToFile(UAstralIndex* Index, const FString& FilePath, FString& Error)
{
	using namespace UE::Astral::BlueprintLibrary;
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = GetNative(Index, TEXT("Save Index To File"), Error);
	FString Path;
	if (!Native.IsValid() || !ResolvePath(FilePath, TEXT("Save Index To File"), Path, Error))
	{
		return EAstralOutcome::Failure;
	}
	return Outcome(MakeFolderFor(Path, TEXT("Save Index To File"), Error) && Native->SaveToFile(Path, Error));
}

EAstralOutcome UAstralBlueprintLibrary::SaveIndexToBytes(UAstralIndex* Index, TArray<uint8>& Bytes, FString& Error)
{
	Bytes.Reset();
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Save Index To Bytes"), Error);
	if (!Native.IsValid())
	{
		return EAstralOutcome::Failure;
	}
	return UE::Astral::BlueprintLibrary::Outcome(Native->SaveToBytes(Bytes, Error));
}

EAstralOutcome UAstralBlueprintLibrary::LoadIndexFromFile(const FString& FilePath, UAstralIndex*& Index, FString& Error, bool bVerifyInBackground)
{
	using namespace UE::Astral::BlueprintLibrary;
	Index = nullptr;
	Error.Reset();
	FString Path;
	if (!ResolvePath(FilePath, TEXT("Load Index From File"), Path, Error))
	{
		return EAstralOutcome::Failure;
	}
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = FAstralNativeIndex::LoadFromFile(Path, bVerifyInBackground, Error);
	if (!Native.IsValid())
	{
		return EAstralOutcome::Failure;
	}
	Index = NewIndex(Native);
	return EAstralOutcome::Success;
}

EAstralOutcome UAstralBlueprintLibrary::LoadIndexFromBytes(const TArray<uint8>& Bytes, UAstralIndex*& Index, FString& Error)
{
	Index = nullptr;
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = FAstralNativeIndex::LoadFromBytes(Bytes, Error);
	if (!Native.IsValid())
	{
		return EAstralOutcome::Failure;
	}
	Index = UE::Astral::BlueprintLibrary::NewIndex(Native);
	return EAstralOutcome::Success;
}

EAstralOutcome UAstralBlueprintLibrary::VerifyIndex(UAstralIndex* Index, FString& Error)
{
	Error.Reset();
	const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = UE::Astral::BlueprintLibrary::GetNative(Index, TEXT("Verify Index"), Error);
	if (!Native.IsValid())
	{
		return EAstralOutcome::Failure;
	}
	return UE::Astral::BlueprintLibrary::Outcome(Native->Verify(Error));
}

bool UAstralBlueprintLibrary::IsAstralAvailable()
{
	return UE::Astral::IsAvailable();
}
