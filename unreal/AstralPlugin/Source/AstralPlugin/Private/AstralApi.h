// The function table every call into libastral goes through.
//
// libastral is loaded at run time (FAstralPluginModule), never linked, so no
// import library is needed on Windows. Each entry is typed from astral.h with
// decltype: a prototype that changes there is a compile error here, not a
// crash at run time. astral.hpp, included last, routes every call of its
// wrapper through this table with ASTRAL_HPP_CALL. Include this header, never
// astral.hpp or astral_bench.hpp directly.

#pragma once

#include "CoreMinimal.h"
#include <atomic>

#ifdef ASTRAL_HPP
#error "astral.hpp was included before AstralApi.h: its calls would bypass the function table"
#endif

THIRD_PARTY_INCLUDES_START
#include "astral.h"
THIRD_PARTY_INCLUDES_END

/** Every astral.h function the plugin calls. */
#define ASTRAL_PLUGIN_FUNCTIONS(X) \
	X(astral_version_number) \
	X(astral_status_string) \
	X(astral_last_error) \
	X(astral_init) \
	X(astral_shutdown) \
	X(astral_index_create) \
	X(astral_index_destroy) \
	X(astral_index_add) \
	X(astral_index_remove) \
	X(astral_index_query) \
	X(astral_index_query_batch) \
	X(astral_index_count) \
	X(astral_index_stats) \
	X(astral_index_save) \
	X(astral_index_save_to_buffer) \
	X(astral_index_load_ex) \
	X(astral_index_load_from_memory) \
	X(astral_index_verify) \
	X(astral_index_add_ex) \
	X(astral_index_set_tags) \
	X(astral_index_get_payload) \
	X(astral_index_get_attributes) \
	X(astral_index_query_ex) \
	X(astral_index_query_batch_ex) \
	X(astral_index_upsert) \
	X(astral_index_upsert_memories) \
	X(astral_index_contains) \
	X(astral_index_clear) \
	X(astral_index_get_vector) \
	X(astral_index_set_tag_name) \
	X(astral_index_get_tag_name) \
	X(astral_index_find_tag) \
	X(astral_index_add_memories) \
	X(astral_index_touch) \
	X(astral_index_set_importance) \
	X(astral_index_get_memory) \
	X(astral_index_query_within)

/** The table: one pointer per function, named as in astral.h. */
struct FAstralApi
{
#define ASTRAL_PLUGIN_DECLARE_ENTRY(Name) decltype(&::Name) Name = nullptr;
	ASTRAL_PLUGIN_FUNCTIONS(ASTRAL_PLUGIN_DECLARE_ENTRY)
#undef ASTRAL_PLUGIN_DECLARE_ENTRY
};

namespace UE::Astral
{
	/**
	 * Filled once on the game thread by the module before any index exists,
	 * then only read. Never cleared: the library stays loaded, and indexes
	 * collected after the module shut down still release through it.
	 */
	extern FAstralApi GApi;

	/** Fills GApi from a loaded library, all entries or none; OutMissing names the exports not found. */
	bool LoadApi(void* LibraryHandle, FString& OutMissing);

	/** True between a successful astral_init and the module's shutdown. */
	bool IsAvailable();
	void SetAvailable(bool bAvailable);

	/** "Astral <What>: <status>: <message>" for the calling thread's last failure: call it on the thread that failed. */
	FString DescribeFailure(const TCHAR* What, AstralStatus Status);

	/** Logs Message to LogAstral as a warning, stores it in OutError and returns false. */
	bool Fail(FString& OutError, FString Message);

	/** The message for calls made while the library is not loaded or not started. */
	FString NotAvailableMessage(const TCHAR* What);
}

#define ASTRAL_HPP_CALL(name) (::UE::Astral::GApi.name)

THIRD_PARTY_INCLUDES_START
#include "astral.hpp"
THIRD_PARTY_INCLUDES_END
