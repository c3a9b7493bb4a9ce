// The scoped-query and key nodes end to end, written once for two runners:
// the Automation test Astral.Functional.ScopedQuery (in the engine) and
// unreal_nodes (unreal/stubcheck/runtime, on the stand-in engine with the
// real libastral). Tags by name and by Gameplay Tag, owners, payloads, every
// filter condition, save and load, Upsert, Set Memory Tags, Remove, Clear,
// Contains, Count, Get Memory Vector, Get Memory Payload and Release.

#pragma once

#include "CoreMinimal.h"
#include "AstralBlueprintLibrary.h"
#include "AstralIndex.h"
#include "AstralNativeIndex.h"
#include "GameplayTagContainer.h"

namespace UE::Astral::Tests
{
	/** Somewhere to put a node's outputs a check does not read (e.g. Find Nearest's Complete and Covered). Game thread. */
	template <typename T>
	T& Unread()
	{
		static T Value{};
		return Value;
	}
}

namespace UE::Astral::Tests::Scoped
{
	/** Expect(bOk, What): a check that must hold. */
	using FExpect = TFunction<void(bool bOk, const FString& What)>;

	inline TArray<float> Vec(float A, float B, float C, float D)
	{
		return TArray<float>({ A, B, C, D });
	}

	inline FString Ids(const TArray<FAstralResult>& Results)
	{
		FString Text;
		for (const FAstralResult& Result : Results)
		{
			Text += FString::Printf(TEXT("%s%lld"), Text.IsEmpty() ? TEXT("") : TEXT(","), Result.Id);
		}
		return Text;
	}

	/** Find Nearest for (1,0,0,0), K 10, under Filter: the ids, best first, as "1,2,3". */
	inline FString Nearest(UAstralIndex* Index, const FAstralQueryFilter& Filter, TArray<FAstralResult>* OutResults = nullptr)
	{
		TArray<FAstralResult> Results;
		FString Error;
		if (UAstralBlueprintLibrary::FindNearest(Index, Vec(1.0f, 0.0f, 0.0f, 0.0f), 10, Filter, Results, Unread<bool>(), Unread<float>(), Error) != EAstralOutcome::Success)
		{
			return TEXT("failed: ") + Error;
		}
		if (OutResults != nullptr)
		{
			*OutResults = Results;
		}
		return Ids(Results);
	}

	inline FGameplayTagContainer GameplayTags(const TCHAR* Name)
	{
		FGameplayTagContainer Tags;
		Tags.AddTag(FGameplayTag::RequestGameplayTag(FName(Name)));
		return Tags;
	}

	/** The bit Name names in Native's table, -1 without one, -2 when the lookup failed. */
	inline int32 TagBitOf(const FAstralNativeIndex& Native, const TCHAR* Name)
	{
		int32 Bit = -1;
		FString Error;
		return Native.FindTag(FName(Name), Bit, Error) ? Bit : -2;
	}

	/** The 64-bit FNV-1a of Text's UTF-8, as Make Owner Key computes it. */
	inline int64 Fnv1a(const FString& Text)
	{
		const FTCHARToUTF8 Utf8(*Text);
		uint64 Hash = 14695981039346656037ull;
		for (int32 Byte = 0; Byte < Utf8.Length(); ++Byte)
		{
			Hash = (Hash ^ static_cast<uint8>(Utf8.Get()[Byte])) * 1099511628211ull;
		}
		return static_cast<int64>(Hash);
	}

	/**
	 * Runs the scenario: OwnerA and OwnerB are any two live objects (their
	 * path names make the owner keys), SavePath a full path to write.
	 */
	inline void Run(const FExpect& Expect, const UObject* OwnerA, const UObject* OwnerB, const FString& SavePath)
	{
		FString Error;
		UAstralIndex* Index = nullptr;
		FAstralIndexOptions Options;
		Options.Kind = EAstralIndexKind::Flat;
		Options.Storage = EAstralStorage::F32;
		if (UAstralBlueprintLibrary::CreateIndex(4, Options, Index, Error) != EAstralOutcome::Success)
		{
			Expect(false, TEXT("Create Index: ") + Error);
			return;
		}

		// Owner keys: a hash of the path name, the same for the same object, never 0.
		const int64 A = UAstralBlueprintLibrary::MakeOwnerKey(OwnerA);
		const int64 B = UAstralBlueprintLibrary::MakeOwnerKey(OwnerB);
		Expect(A == Fnv1a(OwnerA->GetPathName()) && A != 0, TEXT("Make Owner Key is the FNV-1a of the path name"));
		Expect(A == UAstralBlueprintLibrary::MakeOwnerKey(OwnerA) && A != B, TEXT("Make Owner Key: one key per object"));
		Expect(UAstralBlueprintLibrary::MakeOwnerKey(nullptr) == 0, TEXT("Make Owner Key of None is 0 (no owner)"));

		// Threat at a chosen bit; Rumor and Place.River take the lowest free ones.
		Expect(UAstralBlueprintLibrary::DefineTag(Index, FName(TEXT("Threat")), 5, Error) == EAstralOutcome::Success, TEXT("Define Tag Threat = 5: ") + Error);
		const TArray<FName> Threat = { FName(TEXT("Threat")) };
		const TArray<FName> Rumor = { FName(TEXT("Rumor")) };
		const TArray<FName> NoNames;
		const FGameplayTagContainer NoTags;
		const FString Unicode = FString(UTF8_TO_TCHAR("h\xC3\xA9llo \xE2\x9C\x93 \xF0\x9F\x90\xBA"));
		Expect(UAstralBlueprintLibrary::AddMemory(Index, 1, Vec(1.0f, 0.0f, 0.0f, 0.0f), Threat, NoTags, A, TEXT("the wolf by the river"), Error) == EAstralOutcome::Success,
			TEXT("Add Memory 1 (Threat, owner A, payload): ") + Error);
		Expect(UAstralBlueprintLibrary::AddMemory(Index, 2, Vec(0.9f, 0.1f, 0.0f, 0.0f), Rumor, GameplayTags(TEXT("Place.River")), A, Unicode, Error) == EAstralOutcome::Success,
			TEXT("Add Memory 2 (Rumor + Gameplay Tag Place.River, owner A, non-ASCII payload): ") + Error);
		FAstralMemory Three;
		Three.Id = 3;
		Three.Vector = Vec(0.8f, 0.2f, 0.0f, 0.0f);
		Three.Tags = Threat;
		Three.GameplayTags = GameplayTags(TEXT("Place.River"));
		Three.Owner = B;
		Three.Payload = TEXT("three");
		FAstralMemory Four;
		Four.Id = 4;
		Four.Vector = Vec(0.0f, 1.0f, 0.0f, 0.0f);
		Expect(UAstralBlueprintLibrary::AddMemories(Index, { Three, Four }, Error) == EAstralOutcome::Success, TEXT("Add Memories 3 (Threat, Place.River, owner B) and 4 (nothing): ") + Error);

		const TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> Native = Index->GetNative();
		int32 Bit = TagBitOf(*Native, TEXT("Threat"));
		Expect(Bit == 5, FString::Printf(TEXT("Threat is bit 5 (%d)"), Bit));
		Bit = TagBitOf(*Native, TEXT("Rumor"));
		Expect(Bit == 0, FString::Printf(TEXT("Rumor took the lowest free bit, 0 (%d)"), Bit));
		Bit = TagBitOf(*Native, TEXT("Place.River"));
		Expect(Bit == 1, FString::Printf(TEXT("Place.River took the next, 1 (%d)"), Bit));
		Expect(TagBitOf(*Native, TEXT("Never")) == -1, TEXT("a name never used has no bit"));

		Expect(UAstralBlueprintLibrary::GetMemoryCount(Index) == 4, TEXT("Memory Count 4"));
		FAstralStats Stats;
		const bool bStats = UAstralBlueprintLibrary::GetStats(Index, Stats, Error) == EAstralOutcome::Success;
		Expect(bStats && Stats.TagNameCount == 3 && Stats.PayloadCount == 3 && Stats.OwnerCount == 2,
			FString::Printf(TEXT("Get Index Stats: 3 tag names (%d), 3 payloads (%lld), 2 owners (%lld)"), Stats.TagNameCount, Stats.PayloadCount, Stats.OwnerCount));
		Expect(UAstralBlueprintLibrary::ContainsMemory(Index, 3) && !UAstralBlueprintLibrary::ContainsMemory(Index, 99), TEXT("Contains Memory 3, not 99"));

		// Every condition, alone and together; (1,0,0,0) ranks 1, 2, 3, 4.
		TArray<FAstralResult> Hits;
		const FString All = Nearest(Index, FAstralQueryFilter(), &Hits);
		Expect(All == TEXT("1,2,3,4"), TEXT("no filter: 1,2,3,4 (") + All + TEXT(")"));
		if (Hits.Num() == 4)
		{
			Expect(Hits[0].Payload == TEXT("the wolf by the river") && Hits[1].Payload == Unicode && Hits[2].Payload == TEXT("three") && Hits[3].Payload.IsEmpty(),
				TEXT("each hit carries its payload, UTF-8 round trip included"));
		}
		TArray<FAstralResult> Bare;
		Expect(UAstralBlueprintLibrary::FindNearest(Index, Vec(1.0f, 0.0f, 0.0f, 0.0f), 1, FAstralQueryFilter(), Bare, Unread<bool>(), Unread<float>(), Error, false) == EAstralOutcome::Success && Bare.Num() == 1
			&& Bare[0].Payload.IsEmpty(), TEXT("Include Payloads off: no payload"));

		struct FCase
		{
			const TCHAR* What;
			FAstralQueryFilter Filter;
			const TCHAR* Want;
		};
		TArray<FCase> Cases;
		auto Add = [&Cases](const TCHAR* What, const FAstralQueryFilter& Filter, const TCHAR* Want) { Cases.Add({ What, Filter, Want }); };
		FAstralQueryFilter F;
		F.Owner = A;
		Add(TEXT("owner A"), F, TEXT("1,2"));
		F = FAstralQueryFilter();
		F.AllTags = Threat;
		Add(TEXT("all of Threat"), F, TEXT("1,3"));
		F.AllGameplayTags = GameplayTags(TEXT("Place.River"));
		Add(TEXT("all of Threat and Place.River"), F, TEXT("3"));
		F = FAstralQueryFilter();
		F.AllTags = { FName(), FName(TEXT("Threat")) };
		Add(TEXT("all of None and Threat (None ignored)"), F, TEXT("1,3"));
		F = FAstralQueryFilter();
		F.AnyTags = Rumor;
		F.AnyGameplayTags = GameplayTags(TEXT("Place.River"));
		Add(TEXT("any of Rumor, Place.River"), F, TEXT("2,3"));
		F = FAstralQueryFilter();
		F.NoTags = Threat;
		Add(TEXT("none of Threat"), F, TEXT("2,4"));
		F = FAstralQueryFilter();
		F.Deny = { 1 };
		Add(TEXT("deny 1"), F, TEXT("2,3,4"));
		F = FAstralQueryFilter();
		F.Allow = { 4, 3 };
		F.bUseAllowList = true;
		Add(TEXT("allow 4, 3"), F, TEXT("3,4"));
		F.Allow.Reset();
		Add(TEXT("an empty allow list"), F, TEXT(""));
		F = FAstralQueryFilter();
		F.Allow = { 4, 3 };
		Add(TEXT("an allow list not in use"), F, TEXT("1,2,3,4"));
		F = FAstralQueryFilter();
		F.AllTags = { FName(TEXT("Never")) };
		Add(TEXT("all of a name never used"), F, TEXT(""));
		F = FAstralQueryFilter();
		F.AnyTags = { FName(TEXT("Never")) };
		Add(TEXT("any of a name never used"), F, TEXT(""));
		F.AnyTags = { FName(TEXT("Never")), FName(TEXT("Rumor")) };
		Add(TEXT("any of a name never used or Rumor"), F, TEXT("2"));
		F = FAstralQueryFilter();
		F.NoTags = { FName(TEXT("Never")) };
		Add(TEXT("none of a name never used"), F, TEXT("1,2,3,4"));
		F = FAstralQueryFilter();
		F.Owner = B;
		F.AllTags = Threat;
		F.Deny = { 1 };
		Add(TEXT("owner B, all of Threat, deny 1"), F, TEXT("3"));
		F.Owner = 12345;
		Add(TEXT("an owner with no memory"), F, TEXT(""));
		for (const FCase& Case : Cases)
		{
			const FString Got = Nearest(Index, Case.Filter);
			Expect(Got == Case.Want, FString::Printf(TEXT("filter %s: %s (got %s)"), Case.What, Case.Want, *Got));
		}

		// The batch applies the filter to every query, payloads included.
		FAstralVector Q0;
		Q0.Values = Vec(1.0f, 0.0f, 0.0f, 0.0f);
		FAstralVector Q1;
		Q1.Values = Vec(0.0f, 1.0f, 0.0f, 0.0f);
		F = FAstralQueryFilter();
		F.Owner = A;
		TArray<int32> Counts;
		Expect(UAstralBlueprintLibrary::FindNearestBatch(Index, { Q0, Q1 }, 1, F, Hits, Counts, Error) == EAstralOutcome::Success && Counts.Num() == 2 && Counts[0] == 1 && Counts[1] == 1
			&& Hits.Num() == 2 && Hits[0].Id == 1 && Hits[1].Id == 2 && Hits[1].Payload == Unicode,
			TEXT("Find Nearest (Batch), owner A: 1 then 2, with payloads (") + Ids(Hits) + TEXT(") ") + Error);

		// Saved and loaded: tags, names, owners and payloads come back.
		Expect(UAstralBlueprintLibrary::SaveIndexToFile(Index, SavePath, Error) == EAstralOutcome::Success, TEXT("Save Index To File: ") + Error);
		UAstralIndex* Loaded = nullptr;
		if (UAstralBlueprintLibrary::LoadIndexFromFile(SavePath, Loaded, Error) == EAstralOutcome::Success)
		{
			F = FAstralQueryFilter();
			F.Owner = A;
			F.AllTags = Threat;
			const FString Got = Nearest(Loaded, F, &Hits);
			Expect(Got == TEXT("1") && Hits.Num() == 1 && Hits[0].Payload == TEXT("the wolf by the river"),
				TEXT("loaded: owner A, all of Threat: 1 with its payload (") + Got + TEXT(")"));
			F = FAstralQueryFilter();
			F.AnyGameplayTags = GameplayTags(TEXT("Place.River"));
			Expect(Nearest(Loaded, F) == TEXT("2,3"), TEXT("loaded: any of Place.River: 2,3"));
			Expect(TagBitOf(*Loaded->GetNative(), TEXT("Rumor")) == 0 && TagBitOf(*Loaded->GetNative(), TEXT("Threat")) == 5, TEXT("loaded: Rumor is still bit 0, Threat 5"));
			// A name new to the loaded index takes a bit no saved name holds.
			Expect(UAstralBlueprintLibrary::AddMemory(Loaded, 9, Vec(0.0f, 0.0f, 0.0f, 1.0f), { FName(TEXT("Quest")) }, NoTags, 0, FString(), Error) == EAstralOutcome::Success,
				TEXT("loaded: Add Memory with a new name: ") + Error);
			Bit = TagBitOf(*Loaded->GetNative(), TEXT("Quest"));
			Expect(Bit == 2, FString::Printf(TEXT("loaded: Quest takes bit 2 (%d)"), Bit));
		}
		else
		{
			Expect(false, TEXT("Load Index From File: ") + Error);
		}

		// Upsert replaces vector, tags and payload in one step.
		Expect(UAstralBlueprintLibrary::UpsertMemory(Index, 2, Vec(0.0f, 0.0f, 1.0f, 0.0f), Threat, NoTags, A, TEXT("moved"), Error) == EAstralOutcome::Success, TEXT("Upsert Memory 2: ") + Error);
		Expect(UAstralBlueprintLibrary::UpsertMemory(Index, 5, Vec(0.0f, 0.0f, 0.0f, 1.0f), NoNames, NoTags, 0, TEXT("new"), Error) == EAstralOutcome::Success, TEXT("Upsert Memory 5 (not stored: added): ") + Error);
		TArray<FAstralResult> Moved;
		Expect(UAstralBlueprintLibrary::FindNearest(Index, Vec(0.0f, 0.0f, 1.0f, 0.0f), 1, FAstralQueryFilter(), Moved, Unread<bool>(), Unread<float>(), Error) == EAstralOutcome::Success && Moved.Num() == 1
			&& Moved[0].Id == 2 && Moved[0].Payload == TEXT("moved"), TEXT("Upsert: 2 is found where it moved, with its new payload"));
		F = FAstralQueryFilter();
		F.AllTags = Threat;
		Expect(Nearest(Index, F) == TEXT("1,3,2"), TEXT("Upsert: 2 now holds Threat (") + Nearest(Index, F) + TEXT(")"));
		F = FAstralQueryFilter();
		F.AnyTags = Rumor;
		Expect(Nearest(Index, F).IsEmpty(), TEXT("Upsert: 2 no longer holds Rumor"));
		Expect(UAstralBlueprintLibrary::GetMemoryCount(Index) == 5, TEXT("Memory Count 5 after the upserts"));

		TArray<float> Stored;
		Expect(UAstralBlueprintLibrary::GetMemoryVector(Index, 2, Stored, Error) == EAstralOutcome::Success && Stored.Num() == 4 && Stored[0] == 0.0f && Stored[2] == 1.0f,
			TEXT("Get Memory Vector 2: (0,0,1,0), F32 storage: exact. ") + Error);
		FString Payload;
		Expect(UAstralBlueprintLibrary::GetMemoryPayload(Index, 3, Payload, Error) == EAstralOutcome::Success && Payload == TEXT("three"), TEXT("Get Memory Payload 3: three"));
		Expect(UAstralBlueprintLibrary::GetMemoryPayload(Index, 4, Payload, Error) == EAstralOutcome::Success && Payload.IsEmpty(), TEXT("Get Memory Payload 4: empty"));

		Expect(UAstralBlueprintLibrary::SetMemoryTags(Index, 4, Threat, NoTags, Error) == EAstralOutcome::Success, TEXT("Set Memory Tags 4 = Threat: ") + Error);
		F = FAstralQueryFilter();
		F.AllTags = Threat;
		Expect(Nearest(Index, F) == TEXT("1,3,2,4"), TEXT("Set Memory Tags: 4 now holds Threat (") + Nearest(Index, F) + TEXT(")"));

		Expect(UAstralBlueprintLibrary::RemoveMemory(Index, 1, Error) == EAstralOutcome::Success, TEXT("Remove Memory 1: ") + Error);
		Expect(!UAstralBlueprintLibrary::ContainsMemory(Index, 1) && UAstralBlueprintLibrary::GetMemoryCount(Index) == 4, TEXT("Remove Memory: 1 is gone"));
		Expect(UAstralBlueprintLibrary::RemoveMemory(Index, 1, Error) == EAstralOutcome::Failure
			&& Error == TEXT("Astral Remove Memory: id not found: astral_index_remove: astral: id not found: id 1"), TEXT("Remove Memory 1 again: ") + Error);

		Expect(UAstralBlueprintLibrary::ClearIndex(Index, Error) == EAstralOutcome::Success, TEXT("Clear Index: ") + Error);
		Expect(UAstralBlueprintLibrary::GetMemoryCount(Index) == 0 && Nearest(Index, FAstralQueryFilter()).IsEmpty(), TEXT("Clear Index: nothing left"));
		Expect(TagBitOf(*Native, TEXT("Threat")) == 5, TEXT("Clear Index keeps the tag names"));
		Expect(UAstralBlueprintLibrary::AddMemory(Index, 1, Vec(1.0f, 0.0f, 0.0f, 0.0f), Threat, NoTags, 0, FString(), Error) == EAstralOutcome::Success, TEXT("Add Memory after Clear Index"));

		Expect(UAstralBlueprintLibrary::ReleaseIndex(Index, Error) == EAstralOutcome::Success, TEXT("Release Index: ") + Error);
		Expect(Index->IsReleased() && !Index->GetNative().IsValid() && Index->GetDimension() == 0, TEXT("Release Index drops the native index"));
		Expect(UAstralBlueprintLibrary::GetMemoryCount(Index) == 0 && !UAstralBlueprintLibrary::ContainsMemory(Index, 1), TEXT("a released index counts 0, contains nothing"));
		Expect(UAstralBlueprintLibrary::AddVector(Index, 7, Vec(1.0f, 0.0f, 0.0f, 0.0f), Error) == EAstralOutcome::Failure && Error == TEXT("Astral Add Vector: Index was released (Release Index)"),
			TEXT("a node on a released index fails: ") + Error);
		// Native still holds it here, as a running async node would.
		int64 Count = -1;
		Expect(Native->Count(Count, Error) && Count == 1, TEXT("a holder of the native index may still use it after Release Index"));
	}
}
