#include "AstralNativeIndex.h"

#include "AstralApi.h"
#include "Async/Async.h"
#include "Misc/Paths.h"
#include "Misc/ScopeLock.h"
#include "Tasks/Task.h"

// Query counts are written as uint32 into TArray<int32>; they never exceed ASTRAL_MAX_K.
static_assert(sizeof(int32) == sizeof(uint32_t), "counts are 32-bit");

namespace UE::Astral::NativeIndex
{
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

	static bool Check(AstralStatus Status, const TCHAR* What, FString& OutError)
	{
		return Status == ASTRAL_OK ? true : Fail(OutError, DescribeFailure(What, Status));
	}

	static bool CheckK(int32 K, const TCHAR* What, FString& OutError)
	{
		if (K < 1 || K > ASTRAL_MAX_K)
		{
			return Fail(OutError, FString::Printf(TEXT("Astral %s: K is %d, not 1 to %d"), What, K, ASTRAL_MAX_K));
		}
		return true;
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

	/** A Blueprint int32 setting that must not be negative (libastral checks the upper bounds). */
	static bool NonNegative(int32 Value, const TCHAR* Name, FString& OutError)
	{
		if (Value < 0)
		{
			return Fail(OutError, FString::Printf(TEXT("Astral Create Index: %s is %d, below 0"), Name, Value));
		}
		return true;
	}

	/** Payload bytes as text: libastral stores what Add wrote, UTF-8. */
	static FString PayloadText(const unsigned char* Bytes, size_t Size)
	{
		if (Size == 0)
		{
			return FString();
		}
		const FUTF8ToTCHAR Text(reinterpret_cast<const ANSICHAR*>(Bytes), static_cast<int32>(Size));
		return FString(Text.Length(), Text.Get());
	}
}

FAstralNativeIndex::FAstralNativeIndex(astral::Index&& InIndex)
	: Index(new astral::Index(MoveTemp(InIndex)))
{
	check(Index->valid());
}

FAstralNativeIndex::~FAstralNativeIndex()
{
	delete Index;
}

TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> FAstralNativeIndex::Create(int32 Dimension, const FAstralIndexOptions& Options, FString& OutError)
{
	using namespace UE::Astral::NativeIndex;
	// libastral checks every range too; a negative value must not wrap to a valid one.
	if (Dimension < 1 || Dimension > ASTRAL_MAX_DIMENSION)
	{
		UE::Astral::Fail(OutError, FString::Printf(TEXT("Astral Create Index: Dimension is %d, not 1 to %d"), Dimension, ASTRAL_MAX_DIMENSION));
		return nullptr;
	}
	// The factor only means something with a copy: the default 4 must not
	// make an index without one fail.
	const bool bRerank = Options.Rerank != EAstralRerank::None;
	if (bRerank && (Options.RerankFactor < 0 || Options.RerankFactor > static_cast<int32>(ASTRAL_MAX_RERANK_FACTOR)))
	{
		UE::Astral::Fail(OutError, FString::Printf(TEXT("Astral Create Index: Rerank Factor is %d, not 1 to %d (0 for %d)"),
			Options.RerankFactor, static_cast<int32>(ASTRAL_MAX_RERANK_FACTOR), static_cast<int32>(ASTRAL_DEFAULT_RERANK_FACTOR)));
		return nullptr;
	}
	if (!NonNegative(Options.HnswM, TEXT("HNSW M"), OutError) || !NonNegative(Options.HnswEfConstruction, TEXT("HNSW Ef Construction"), OutError) ||
		!NonNegative(Options.HnswEfSearch, TEXT("HNSW Ef Search"), OutError) || !NonNegative(Options.FlatLimitMiB, TEXT("Flat Limit MiB"), OutError))
	{
		return nullptr;
	}

	const AstralIndexOptions Native = astral::IndexOptions(static_cast<uint32>(Dimension))
		.metric(ToNativeMetric(Options.Metric))
		.kind(ToNativeKind(Options.Kind))
		.storage(ToNativeStorage(Options.Storage))
		.rerank(ToNativeRerank(Options.Rerank), bRerank ? static_cast<uint32>(Options.RerankFactor) : 0u)
		.hnsw(static_cast<uint32>(Options.HnswM), static_cast<uint32>(Options.HnswEfConstruction), static_cast<uint32>(Options.HnswEfSearch))
		.flat_limit_bytes(static_cast<uint64_t>(Options.FlatLimitMiB) << 20);
	return Make(TEXT("Create Index"), OutError, [&Native](astral::Index& Out) { return astral::Index::create(Native, Out); });
}

TSharedPtr<FAstralNativeIndex, ESPMode::ThreadSafe> FAstralNativeIndex::LoadFromFile(const FString& Path, bool bVerifyInBackground, FString& OutError)
{
	// A missing file is told in words of our own: the system's differ per
	// platform, and a designer acts on "no file" first.
	if (!FPaths::FileExists(Path))
	{
		UE::Astral::Fail(OutError, FString::Printf(TEXT("Astral Load Index From File: no index file at %s"), *Path));
		return nullptr;
	}
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
	return static_cast<int32>(Index->dimension());
}

bool FAstralNativeIndex::Add(const TArray<uint64_t>& Ids, const TArray<float>& Vectors, FString& OutError)
{
	const astral::Status Status = Index->add(astral::Span<const uint64_t>(Ids.GetData(), static_cast<size_t>(Ids.Num())),
		astral::Span<const float>(Vectors.GetData(), static_cast<size_t>(Vectors.Num())));
	return UE::Astral::NativeIndex::Check(Status.code(), TEXT("Add"), OutError);
}

bool FAstralNativeIndex::Add(uint64_t Id, const TArray<float>& Vector, FString& OutError)
{
	const astral::Status Status = Index->add(astral::Span<const uint64_t>(&Id, 1), astral::Span<const float>(Vector.GetData(), static_cast<size_t>(Vector.Num())));
	return UE::Astral::NativeIndex::Check(Status.code(), TEXT("Add Vector"), OutError);
}

bool FAstralNativeIndex::AddMemories(const FAstralMemory* Memories, int32 Count, bool bReplace, const TCHAR* What, FString& OutError)
{
	using namespace UE::Astral;
	check(Count >= 0 && (Memories != nullptr || Count == 0));
	const int32 Dimension = GetDimension();
	if (static_cast<int64>(Count) * Dimension > MAX_int32)
	{
		return Fail(OutError, FString::Printf(TEXT("Astral %s: %d memories of dimension %d do not fit one array; add them in smaller batches"), What, Count, Dimension));
	}
	TArray<uint64_t> Ids;
	TArray<float> Vectors;
	TArray<uint64_t> Tags;
	TArray<uint64_t> Owners;
	TArray<uint32_t> PayloadSizes;
	TArray<uint8> PayloadBytes;
	TArray<int64_t> Times;
	TArray<float> Importances;
	Ids.SetNumUninitialized(Count);
	Times.SetNumUninitialized(Count);
	Importances.SetNumUninitialized(Count);
	Vectors.SetNumUninitialized(Count * Dimension);
	Tags.SetNumUninitialized(Count);
	Owners.SetNumUninitialized(Count);
	PayloadSizes.SetNumUninitialized(Count);
	bool bAnyTags = false;
	bool bAnyOwner = false;
	bool bAnyPayload = false;
	bool bAnyRecall = false;
	for (int32 Row = 0; Row < Count; ++Row)
	{
		const FAstralMemory& Memory = Memories[Row];
		if (Memory.Vector.Num() != Dimension)
		{
			return Fail(OutError, FString::Printf(TEXT("Astral %s: the vector of id %lld has %d floats, not the index's dimension %d"),
				What, Memory.Id, Memory.Vector.Num(), Dimension));
		}
		FMemory::Memcpy(Vectors.GetData() + static_cast<int64>(Row) * Dimension, Memory.Vector.GetData(), sizeof(float) * Dimension);
		Ids[Row] = static_cast<uint64_t>(Memory.Id);
		uint64_t Mask = 0;
		if (!DefineTagMask(Memory.Tags, Memory.GameplayTags, What, Mask, OutError))
		{
			return false;
		}
		Tags[Row] = Mask;
		Owners[Row] = static_cast<uint64_t>(Memory.Owner);
		const FTCHARToUTF8 Payload(*Memory.Payload);
		if (Payload.Length() > ASTRAL_MAX_PAYLOAD)
		{
			return Fail(OutError, FString::Printf(TEXT("Astral %s: the payload of id %lld takes %d bytes of UTF-8, more than %d"),
				What, Memory.Id, Payload.Length(), ASTRAL_MAX_PAYLOAD));
		}
		PayloadSizes[Row] = static_cast<uint32_t>(Payload.Length());
		PayloadBytes.Append(reinterpret_cast<const uint8*>(Payload.Get()), Payload.Length());
		bAnyTags |= Mask != 0;
		bAnyOwner |= Memory.Owner != 0;
		bAnyPayload |= Payload.Length() > 0;
		Times[Row] = Memory.Time;
		Importances[Row] = Memory.Importance;
		bAnyRecall |= Memory.Time != 0 || Memory.Importance != 0.0f;
	}
	// Pointers into PayloadBytes only once it is whole: appending moves it.
	TArray<const void*> Payloads;
	if (bAnyPayload)
	{
		Payloads.SetNumUninitialized(Count);
		int64 Offset = 0;
		for (int32 Row = 0; Row < Count; ++Row)
		{
			Payloads[Row] = PayloadBytes.GetData() + Offset;
			Offset += PayloadSizes[Row];
		}
	}
	const uint64_t* TagsArg = bAnyTags ? Tags.GetData() : nullptr;
	const uint64_t* OwnersArg = bAnyOwner ? Owners.GetData() : nullptr;
	const void* const* PayloadsArg = bAnyPayload ? Payloads.GetData() : nullptr;
	const uint32_t* SizesArg = bAnyPayload ? PayloadSizes.GetData() : nullptr;
	AstralStatus Status = ASTRAL_OK;
	if (bReplace)
	{
		// One call replaces time and importance with the rest, so a query
		// never sees the new vector with the old time and importance.
		Status = GApi.astral_index_upsert_memories(Index->handle(), Ids.GetData(), static_cast<size_t>(Count), Vectors.GetData(), static_cast<size_t>(Vectors.Num()),
			TagsArg, OwnersArg, PayloadsArg, SizesArg, Times.GetData(), Importances.GetData());
	}
	else if (bAnyRecall)
	{
		Status = GApi.astral_index_add_memories(Index->handle(), Ids.GetData(), static_cast<size_t>(Count), Vectors.GetData(), static_cast<size_t>(Vectors.Num()),
			TagsArg, OwnersArg, PayloadsArg, SizesArg, Times.GetData(), Importances.GetData());
	}
	else
	{
		Status = GApi.astral_index_add_ex(Index->handle(), Ids.GetData(), static_cast<size_t>(Count), Vectors.GetData(), static_cast<size_t>(Vectors.Num()),
			TagsArg, OwnersArg, PayloadsArg, SizesArg);
	}
	return NativeIndex::Check(Status, What, OutError);
}

bool FAstralNativeIndex::SetTags(uint64_t Id, const TArray<FName>& Tags, const FGameplayTagContainer& GameplayTags, FString& OutError)
{
	uint64_t Mask = 0;
	if (!DefineTagMask(Tags, GameplayTags, TEXT("Set Memory Tags"), Mask, OutError))
	{
		return false;
	}
	const astral::Status Status = Index->set_tags(astral::Span<const uint64_t>(&Id, 1), astral::Span<const uint64_t>(&Mask, 1));
	return UE::Astral::NativeIndex::Check(Status.code(), TEXT("Set Memory Tags"), OutError);
}

bool FAstralNativeIndex::Touch(const TArray<uint64_t>& Ids, int64 Time, FString& OutError)
{
	const AstralStatus Status = UE::Astral::GApi.astral_index_touch(Index->handle(), Ids.GetData(), static_cast<size_t>(Ids.Num()), Time);
	return UE::Astral::NativeIndex::Check(Status, TEXT("Touch Memories"), OutError);
}

bool FAstralNativeIndex::SetImportance(const TArray<uint64_t>& Ids, float Importance, FString& OutError)
{
	const AstralStatus Status = UE::Astral::GApi.astral_index_set_importance(Index->handle(), Ids.GetData(), static_cast<size_t>(Ids.Num()), Importance);
	return UE::Astral::NativeIndex::Check(Status, TEXT("Set Memory Importance"), OutError);
}

bool FAstralNativeIndex::GetTimeAndImportance(uint64_t Id, int64& OutTime, float& OutImportance, FString& OutError) const
{
	int64_t Time = 0;
	float Importance = 0.0f;
	const AstralStatus Status = UE::Astral::GApi.astral_index_get_memory(Index->handle(), Id, &Time, &Importance);
	OutTime = Status == ASTRAL_OK ? static_cast<int64>(Time) : 0;
	OutImportance = Status == ASTRAL_OK ? Importance : 0.0f;
	return UE::Astral::NativeIndex::Check(Status, TEXT("Get Memory Time and Importance"), OutError);
}

bool FAstralNativeIndex::Remove(const TArray<uint64_t>& Ids, FString& OutError)
{
	const astral::Status Status = Index->remove(astral::Span<const uint64_t>(Ids.GetData(), static_cast<size_t>(Ids.Num())));
	return UE::Astral::NativeIndex::Check(Status.code(), TEXT("Remove Memories"), OutError);
}

bool FAstralNativeIndex::Remove(uint64_t Id, FString& OutError)
{
	const astral::Status Status = Index->remove(astral::Span<const uint64_t>(&Id, 1));
	return UE::Astral::NativeIndex::Check(Status.code(), TEXT("Remove Memory"), OutError);
}

bool FAstralNativeIndex::Clear(FString& OutError)
{
	return UE::Astral::NativeIndex::Check(UE::Astral::GApi.astral_index_clear(Index->handle()), TEXT("Clear Index"), OutError);
}

bool FAstralNativeIndex::Contains(uint64_t Id, bool& bOutContains, FString& OutError) const
{
	int Found = 0;
	const AstralStatus Status = UE::Astral::GApi.astral_index_contains(Index->handle(), Id, &Found);
	bOutContains = Status == ASTRAL_OK && Found != 0;
	return UE::Astral::NativeIndex::Check(Status, TEXT("Contains Memory"), OutError);
}

bool FAstralNativeIndex::Count(int64& OutCount, FString& OutError) const
{
	uint64_t Stored = 0;
	const astral::Status Status = Index->count(Stored);
	OutCount = Status ? static_cast<int64>(Stored) : 0;
	return UE::Astral::NativeIndex::Check(Status.code(), TEXT("Memory Count"), OutError);
}

bool FAstralNativeIndex::GetVector(uint64_t Id, TArray<float>& OutVector, FString& OutError) const
{
	OutVector.SetNumUninitialized(GetDimension());
	const AstralStatus Status = UE::Astral::GApi.astral_index_get_vector(Index->handle(), Id, OutVector.GetData(), static_cast<size_t>(OutVector.Num()));
	if (Status != ASTRAL_OK)
	{
		OutVector.Reset();
	}
	return UE::Astral::NativeIndex::Check(Status, TEXT("Get Memory Vector"), OutError);
}

bool FAstralNativeIndex::GetPayload(uint64_t Id, FString& OutPayload, FString& OutError) const
{
	unsigned char Buffer[ASTRAL_MAX_PAYLOAD];
	size_t Size = 0;
	const astral::Status Status = Index->payload(Id, astral::Span<unsigned char>(Buffer, sizeof(Buffer)), Size);
	OutPayload = Status ? UE::Astral::NativeIndex::PayloadText(Buffer, Size) : FString();
	return UE::Astral::NativeIndex::Check(Status.code(), TEXT("Get Memory Payload"), OutError);
}

bool FAstralNativeIndex::DefineTag(const FName& Name, int32 Bit, FString& OutError)
{
	if (Name.IsNone())
	{
		return UE::Astral::Fail(OutError, TEXT("Astral Define Tag: Name is None"));
	}
	if (Bit < 0 || Bit >= ASTRAL_TAG_BITS)
	{
		return UE::Astral::Fail(OutError, FString::Printf(TEXT("Astral Define Tag: Bit is %d, not 0 to 63"), Bit));
	}
	const FTCHARToUTF8 Utf8Name(*Name.ToString());
	FScopeLock Lock(&TagLock);
	return UE::Astral::NativeIndex::Check(UE::Astral::GApi.astral_index_set_tag_name(Index->handle(), static_cast<uint32_t>(Bit), Utf8Name.Get()),
		TEXT("Define Tag"), OutError);
}

bool FAstralNativeIndex::FindTag(const FName& Name, int32& OutBit, FString& OutError) const
{
	return LookupTag(Name.ToString(), TEXT("Find Tag"), OutBit, OutError);
}

bool FAstralNativeIndex::LookupTag(const FString& Name, const TCHAR* What, int32& OutBit, FString& OutError) const
{
	const FTCHARToUTF8 Utf8Name(*Name);
	uint32_t Bit = 0;
	const AstralStatus Status = UE::Astral::GApi.astral_index_find_tag(Index->handle(), Utf8Name.Get(), &Bit);
	OutBit = Status == ASTRAL_OK ? static_cast<int32>(Bit) : -1;
	return Status == ASTRAL_OK || Status == ASTRAL_E_NOT_FOUND || UE::Astral::NativeIndex::Check(Status, What, OutError);
}

bool FAstralNativeIndex::DefineTagMask(const TArray<FName>& Names, const FGameplayTagContainer& GameplayTags, const TCHAR* What, uint64_t& OutMask, FString& OutError)
{
	using namespace UE::Astral;
	OutMask = 0;
	const int32 Total = Names.Num() + GameplayTags.Num();
	for (int32 Which = 0; Which < Total; ++Which)
	{
		const FName Name = Which < Names.Num() ? Names[Which] : GameplayTags.GetByIndex(Which - Names.Num()).GetTagName();
		if (Name.IsNone())
		{
			continue;
		}
		const FString Text = Name.ToString();
		int32 Bit = -1;
		if (!LookupTag(Text, What, Bit, OutError))
		{
			return false;
		}
		if (Bit < 0)
		{
			// Look again under the lock: another thread may have just defined it.
			FScopeLock Lock(&TagLock);
			if (!LookupTag(Text, What, Bit, OutError))
			{
				return false;
			}
			for (int32 Free = 0; Bit < 0 && Free < ASTRAL_TAG_BITS; ++Free)
			{
				// Asked with no buffer, every bit is "too small"; the size tells a free one (0).
				size_t Size = 0;
				const AstralStatus Status = GApi.astral_index_get_tag_name(Index->handle(), static_cast<uint32_t>(Free), nullptr, 0, &Size);
				if (Status != ASTRAL_OK && Status != ASTRAL_E_BUFFER_TOO_SMALL)
				{
					return NativeIndex::Check(Status, What, OutError);
				}
				if (Size == 0)
				{
					const FTCHARToUTF8 Utf8Name(*Text);
					if (!NativeIndex::Check(GApi.astral_index_set_tag_name(Index->handle(), static_cast<uint32_t>(Free), Utf8Name.Get()), What, OutError))
					{
						return false;
					}
					Bit = Free;
				}
			}
			if (Bit < 0)
			{
				return Fail(OutError, FString::Printf(TEXT("Astral %s: the tag %s is new and all 64 tags of the index are defined"), What, *Text));
			}
		}
		OutMask |= uint64_t(1) << Bit;
	}
	return true;
}

bool FAstralNativeIndex::LookupTagMask(const TArray<FName>& Names, const FGameplayTagContainer& GameplayTags, const TCHAR* What, uint64_t& OutMask,
	int32& OutUnknown, FString& OutError) const
{
	OutMask = 0;
	OutUnknown = 0;
	const int32 Total = Names.Num() + GameplayTags.Num();
	for (int32 Which = 0; Which < Total; ++Which)
	{
		const FName Name = Which < Names.Num() ? Names[Which] : GameplayTags.GetByIndex(Which - Names.Num()).GetTagName();
		// None (an unset pin element) names no tag: no condition, as at add time.
		if (Name.IsNone())
		{
			continue;
		}
		int32 Bit = -1;
		if (!LookupTag(Name.ToString(), What, Bit, OutError))
		{
			return false;
		}
		if (Bit < 0)
		{
			++OutUnknown;
			continue;
		}
		OutMask |= uint64_t(1) << Bit;
	}
	return true;
}

namespace UE::Astral::NativeIndex
{
	/** A query's options with the filter's lists in native form; bMatchesNothing when a tag condition no record can meet. */
	struct FQueryPlan
	{
		AstralQueryOptions Options;
		TArray<uint64_t> Allow;
		TArray<uint64_t> Deny;
		bool bMatchesNothing = false;
	};
}

bool FAstralNativeIndex::FillPayloads(TArray<FAstralResult>& Results, const TCHAR* What, FString& OutError) const
{
	unsigned char Buffer[ASTRAL_MAX_PAYLOAD];
	for (FAstralResult& Result : Results)
	{
		size_t Size = 0;
		const astral::Status Status = Index->payload(static_cast<uint64_t>(Result.Id), astral::Span<unsigned char>(Buffer, sizeof(Buffer)), Size);
		// Removed since the search found it: a hit without its payload.
		if (Status.code() == ASTRAL_E_NOT_FOUND)
		{
			continue;
		}
		if (!Status)
		{
			return UE::Astral::NativeIndex::Check(Status.code(), What, OutError);
		}
		Result.Payload = UE::Astral::NativeIndex::PayloadText(Buffer, Size);
	}
	return true;
}

namespace UE::Astral::NativeIndex
{
	/** Lookup(Names, GameplayTags, Mask, Unknown): the mask of the defined names, and how many are not. */
	template <typename FLookup>
	static bool PlanQuery(int32 K, const FAstralQueryFilter& Filter, const TCHAR* What, FLookup&& Lookup, FQueryPlan& Plan, FString& OutError)
	{
		if (!CheckK(K, What, OutError))
		{
			return false;
		}
		astral::QueryOptions Options(static_cast<uint32>(K));
		Options.owner(static_cast<uint64_t>(Filter.Owner));
		uint64_t Mask = 0;
		int32 Unknown = 0;
		if (!Lookup(Filter.AllTags, Filter.AllGameplayTags, Mask, Unknown))
		{
			return false;
		}
		// A tag no record holds: nobody holds all of them.
		Plan.bMatchesNothing |= Unknown > 0;
		Options.all_tags(Mask);
		if (!Lookup(Filter.AnyTags, Filter.AnyGameplayTags, Mask, Unknown))
		{
			return false;
		}
		// Any of names none of which is defined: 0 would mean no condition.
		Plan.bMatchesNothing |= Mask == 0 && Unknown > 0;
		Options.any_tags(Mask);
		if (!Lookup(Filter.NoTags, Filter.NoGameplayTags, Mask, Unknown))
		{
			return false;
		}
		Options.no_tags(Mask);
		Plan.Deny.SetNumUninitialized(Filter.Deny.Num());
		for (int32 I = 0; I < Filter.Deny.Num(); ++I)
		{
			Plan.Deny[I] = static_cast<uint64_t>(Filter.Deny[I]);
		}
		Options.deny(astral::Span<const uint64_t>(Plan.Deny.GetData(), static_cast<size_t>(Plan.Deny.Num())));
		if (Filter.bUseAllowList)
		{
			Plan.Allow.SetNumUninitialized(Filter.Allow.Num());
			for (int32 I = 0; I < Filter.Allow.Num(); ++I)
			{
				Plan.Allow[I] = static_cast<uint64_t>(Filter.Allow[I]);
			}
			Options.allow(astral::Span<const uint64_t>(Plan.Allow.GetData(), static_cast<size_t>(Plan.Allow.Num())));
		}
		Plan.Options = Options.get();
		return true;
	}

	static void ToResults(const TArray<AstralResult>& Native, int32 From, int32 Count, TArray<FAstralResult>& Out)
	{
		for (int32 Hit = 0; Hit < Count; ++Hit)
		{
			FAstralResult Result;
			Result.Id = static_cast<int64>(Native[From + Hit].id);
			Result.Score = Native[From + Hit].score;
			Out.Add(MoveTemp(Result));
		}
	}
}

bool FAstralNativeIndex::FindNearest(const TArray<float>& Vector, int32 K, const FAstralQueryFilter& Filter, bool bWithPayloads,
	TArray<FAstralResult>& OutResults, FString& OutError) const
{
	FAstralSearchCoverage Coverage;
	return Search(Vector, K, Filter, FAstralSearchSettings(), bWithPayloads, OutResults, Coverage, OutError);
}

double FAstralNativeIndex::DecayPerUnit(double HalfLife)
{
	check(HalfLife > 0.0);
	return FMath::Pow(0.5, 1.0 / HalfLife);
}

namespace UE::Astral::NativeIndex
{
	/** Puts Settings' ranking into Options; false with OutError set when the weights cannot rank. */
	static bool PlanRanking(const FAstralSearchSettings& Settings, const TCHAR* What, AstralQueryOptions& Options, FString& OutError)
	{
		const FAstralRecallWeights& Weights = Settings.Weights;
		// libastral checks the weights (finite, 0 or more) and the metric; the
		// half-life is the plugin's own input. One of 0 or below (or NaN) has
		// no decay rate; it matters only when recency is weighed.
		const bool bHalfLifeValid = Weights.HalfLife > 0.0;
		if (Weights.Recency != 0.0f && !bHalfLifeValid)
		{
			return Fail(OutError, FString::Printf(TEXT("Astral %s: Half Life is %g; it must be above 0 when the Recency weight is not 0"),
				What, Weights.HalfLife));
		}
		Options.rank_relevance = Weights.Relevance;
		Options.rank_recency = Weights.Recency;
		Options.rank_importance = Weights.Importance;
		Options.rank_decay = bHalfLifeValid ? FAstralNativeIndex::DecayPerUnit(Weights.HalfLife) : 1.0;
		Options.rank_now = Settings.Now;
		return true;
	}
}

bool FAstralNativeIndex::Search(const TArray<float>& Vector, int32 K, const FAstralQueryFilter& Filter, const FAstralSearchSettings& Settings,
	bool bWithPayloads, TArray<FAstralResult>& OutResults, FAstralSearchCoverage& OutCoverage, FString& OutError) const
{
	using namespace UE::Astral::NativeIndex;
	const TCHAR* What = Settings.bRecall ? TEXT("Recall Memories") : TEXT("Find Nearest");
	OutResults.Reset();
	OutCoverage = FAstralSearchCoverage();
	FQueryPlan Plan;
	const auto Lookup = [this, What, &OutError](const TArray<FName>& Names, const FGameplayTagContainer& Tags, uint64_t& Mask, int32& Unknown)
	{
		return LookupTagMask(Names, Tags, What, Mask, Unknown, OutError);
	};
	if (!PlanQuery(K, Filter, What, Lookup, Plan, OutError))
	{
		return false;
	}
	if (Settings.bRecall && !PlanRanking(Settings, What, Plan.Options, OutError))
	{
		return false;
	}
	if (Settings.BudgetMicroseconds < 0)
	{
		return UE::Astral::Fail(OutError, FString::Printf(TEXT("Astral %s: Budget Microseconds is %lld, below 0"), What, Settings.BudgetMicroseconds));
	}
	if (Vector.Num() != GetDimension())
	{
		// libastral says the same; checked here so a query matching nothing still fails on it.
		return UE::Astral::Fail(OutError, FString::Printf(TEXT("Astral %s: the vector has %d floats, not the index's dimension %d"),
			What, Vector.Num(), GetDimension()));
	}
	if (Plan.bMatchesNothing)
	{
		return true;
	}
	TArray<AstralResult> Native;
	Native.SetNumUninitialized(K);
	uint32 Count = 0;
	AstralStatus Status = ASTRAL_OK;
	if (Settings.BudgetMicroseconds == 0)
	{
		Status = Index->query(astral::Span<const float>(Vector.GetData(), static_cast<size_t>(Vector.Num())), Plan.Options,
			astral::Span<AstralResult>(Native.GetData(), static_cast<size_t>(K)), Count).code();
	}
	else
	{
		AstralBudgetReport Report{};
		Report.struct_size = static_cast<uint32_t>(sizeof(Report));
		Status = UE::Astral::GApi.astral_index_query_within(Index->handle(), Vector.GetData(), static_cast<size_t>(Vector.Num()), &Plan.Options,
			static_cast<uint64_t>(Settings.BudgetMicroseconds), Native.GetData(), static_cast<size_t>(K), &Count, &Report);
		if (Status == ASTRAL_OK)
		{
			OutCoverage.bComplete = Report.complete != 0;
			OutCoverage.Covered = static_cast<float>(Report.covered);
		}
	}
	if (Status != ASTRAL_OK)
	{
		return Check(Status, What, OutError);
	}
	OutResults.Reserve(static_cast<int32>(Count));
	ToResults(Native, 0, static_cast<int32>(Count), OutResults);
	if (bWithPayloads && !FillPayloads(OutResults, What, OutError))
	{
		OutResults.Reset();
		OutCoverage = FAstralSearchCoverage();
		return false;
	}
	return true;
}

bool FAstralNativeIndex::FindNearestBatch(const TArray<FAstralVector>& Queries, int32 K, const FAstralQueryFilter& Filter, bool bWithPayloads,
	TArray<FAstralResult>& OutResults, TArray<int32>& OutCounts, FString& OutError) const
{
	using namespace UE::Astral::NativeIndex;
	const TCHAR* What = TEXT("Find Nearest (Batch)");
	OutResults.Reset();
	OutCounts.Reset();
	FQueryPlan Plan;
	const auto Lookup = [this, What, &OutError](const TArray<FName>& Names, const FGameplayTagContainer& Tags, uint64_t& Mask, int32& Unknown)
	{
		return LookupTagMask(Names, Tags, What, Mask, Unknown, OutError);
	};
	if (!PlanQuery(K, Filter, What, Lookup, Plan, OutError))
	{
		return false;
	}
	const int32 Dimension = GetDimension();
	const int32 QueryCount = Queries.Num();
	const int64 Capacity = static_cast<int64>(QueryCount) * K;
	if (Capacity > MAX_int32 || static_cast<int64>(QueryCount) * Dimension > MAX_int32)
	{
		return UE::Astral::Fail(OutError, FString::Printf(TEXT("Astral %s: %d queries x K %d results do not fit an array"), What, QueryCount, K));
	}
	TArray<float> Rows;
	Rows.SetNumUninitialized(QueryCount * Dimension);
	for (int32 Query = 0; Query < QueryCount; ++Query)
	{
		const TArray<float>& Values = Queries[Query].Values;
		if (Values.Num() != Dimension)
		{
			return UE::Astral::Fail(OutError, FString::Printf(TEXT("Astral %s: query %d has %d floats, not the index's dimension %d"),
				What, Query, Values.Num(), Dimension));
		}
		FMemory::Memcpy(Rows.GetData() + static_cast<int64>(Query) * Dimension, Values.GetData(), sizeof(float) * Dimension);
	}
	if (Plan.bMatchesNothing || QueryCount == 0)
	{
		OutCounts.SetNumZeroed(QueryCount);
		return true;
	}

	TArray<AstralResult> Native;
	Native.SetNumUninitialized(static_cast<int32>(Capacity));
	OutCounts.SetNumUninitialized(QueryCount);
	uint32 LastPlan = 0;
	const astral::Status Status = Index->query_batch(astral::Span<const float>(Rows.GetData(), static_cast<size_t>(Rows.Num())), Plan.Options,
		astral::Span<AstralResult>(Native.GetData(), static_cast<size_t>(Capacity)),
		astral::Span<uint32_t>(reinterpret_cast<uint32_t*>(OutCounts.GetData()), static_cast<size_t>(QueryCount)), LastPlan);
	if (!Status)
	{
		OutCounts.Reset();
		return Check(Status.code(), What, OutError);
	}
	// Query i's hits start at i * K; only they reach Blueprint, in turn.
	for (int32 Query = 0; Query < QueryCount; ++Query)
	{
		const int32 Count = OutCounts[Query];
		check(Count >= 0 && Count <= K);
		ToResults(Native, Query * K, Count, OutResults);
	}
	if (bWithPayloads && !FillPayloads(OutResults, What, OutError))
	{
		OutResults.Reset();
		OutCounts.Reset();
		return false;
	}
	return true;
}

bool FAstralNativeIndex::GetStats(FAstralStats& OutStats, FString& OutError) const
{
	AstralStats Stats;
	const astral::Status Status = Index->stats(Stats);
	if (!Status)
	{
		return UE::Astral::NativeIndex::Check(Status.code(), TEXT("Get Index Stats"), OutError);
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
	OutStats.PayloadCount = static_cast<int64>(Stats.payload_count);
	OutStats.PayloadBytes = static_cast<int64>(Stats.payload_bytes);
	OutStats.OwnerCount = static_cast<int64>(Stats.owner_count);
	OutStats.TagNameCount = static_cast<int32>(Stats.tag_name_count);
	// kernel is NUL-terminated within its array (astral.h).
	OutStats.Kernel = UTF8_TO_TCHAR(Stats.kernel);
	return true;
}

bool FAstralNativeIndex::SaveToFile(const FString& Path, FString& OutError) const
{
	const FTCHARToUTF8 Utf8Path(*Path);
	const astral::Status Status = Index->save(Utf8Path.Get());
	return UE::Astral::NativeIndex::Check(Status.code(), TEXT("Save Index To File"), OutError);
}

bool FAstralNativeIndex::SaveToBytes(TArray<uint8>& OutBytes, FString& OutError) const
{
	OutBytes.Reset();
	// Ask the size, then fill. Adds on other threads may grow the index in
	// between: each retry sizes to the new length, with room to spare.
	constexpr int32 MaxTries = 4;
	size_t Size = 0;
	astral::Status Status = Index->save(astral::Span<unsigned char>(), Size);
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
		Status = Index->save(astral::Span<unsigned char>(OutBytes.GetData(), static_cast<size_t>(OutBytes.Num())), Size);
	}
	if (!Status)
	{
		OutBytes.Reset();
		return UE::Astral::NativeIndex::Check(Status.code(), TEXT("Save Index To Bytes"), OutError);
	}
	check(Size <= static_cast<size_t>(OutBytes.Num()));
	OutBytes.SetNum(static_cast<int32>(Size));
	return true;
}

bool FAstralNativeIndex::Verify(FString& OutError) const
{
	const astral::Status Status = Index->verify_loaded();
	return UE::Astral::NativeIndex::Check(Status.code(), TEXT("Verify Index"), OutError);
}

void FAstralNativeIndex::FindNearestAsync(const TSharedRef<FAstralNativeIndex, ESPMode::ThreadSafe>& Self, TArray<float> Vector, int32 K,
	FAstralQueryFilter Filter, bool bWithPayloads, FAstralQueryCallback OnGameThread)
{
	UE::Tasks::Launch(TEXT("AstralFindNearestAsync"),
		[Self, Vector = MoveTemp(Vector), K, Filter = MoveTemp(Filter), bWithPayloads, OnGameThread = MoveTemp(OnGameThread)]() mutable
		{
			TArray<FAstralResult> Results;
			FString Error;
			// The failure message is per thread: FindNearest reads it here, on the worker.
			const bool bSuccess = Self->FindNearest(Vector, K, Filter, bWithPayloads, Results, Error);
			AsyncTask(ENamedThreads::GameThread,
				[bSuccess, Results = MoveTemp(Results), Error = MoveTemp(Error), OnGameThread = MoveTemp(OnGameThread)]() mutable
				{
					OnGameThread(bSuccess, MoveTemp(Results), MoveTemp(Error));
				});
		});
}
