#include "AstralApi.h"

#include "AstralPlugin.h"
#include "HAL/PlatformProcess.h"

namespace UE::Astral
{
	FAstralApi GApi;

	/** Written on the game thread, read on any thread. */
	static std::atomic<bool> GAstralAvailable{false};

	bool LoadApi(void* LibraryHandle, FString& OutMissing)
	{
		check(LibraryHandle != nullptr);
		FAstralApi Api;
		TArray<FString> Missing;
#define ASTRAL_PLUGIN_LOAD_ENTRY(Name) \
		Api.Name = reinterpret_cast<decltype(Api.Name)>(FPlatformProcess::GetDllExport(LibraryHandle, TEXT(#Name))); \
		if (Api.Name == nullptr) \
		{ \
			Missing.Add(TEXT(#Name)); \
		}
		ASTRAL_PLUGIN_FUNCTIONS(ASTRAL_PLUGIN_LOAD_ENTRY)
#undef ASTRAL_PLUGIN_LOAD_ENTRY

		if (Missing.Num() > 0)
		{
			OutMissing = FString::Join(Missing, TEXT(", "));
			return false;
		}
		GApi = Api;
		return true;
	}

	bool IsAvailable()
	{
		return GAstralAvailable.load(std::memory_order_acquire);
	}

	void SetAvailable(bool bAvailable)
	{
		GAstralAvailable.store(bAvailable, std::memory_order_release);
	}

	FString DescribeFailure(const TCHAR* What, AstralStatus Status)
	{
		const astral::Status Failed(Status);
		const std::string Message = astral::last_error();
		return FString::Printf(TEXT("Astral %s: %s: %s"), What, UTF8_TO_TCHAR(Failed.name()), UTF8_TO_TCHAR(Message.c_str()));
	}

	bool Fail(FString& OutError, FString Message)
	{
		UE_LOG(LogAstral, Warning, TEXT("%s"), *Message);
		OutError = MoveTemp(Message);
		return false;
	}

	FString NotAvailableMessage(const TCHAR* What)
	{
		return FString::Printf(TEXT("Astral %s: libastral is not loaded or not started (see the LogAstral messages at start-up)"), What);
	}
}
