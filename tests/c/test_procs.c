/* AstralInit.max_procs caps the Go runtime's GOMAXPROCS from C. CTest runs
 * it twice: as the process starts, and with GOMAXPROCS=3 in the
 * environment, which the runtime reads when the library loads. */
#include "check.h"

static uint32_t procs_after_init(int32_t threads, uint32_t max_procs) {
    AstralInit init = ASTRAL_INIT_DEFAULTS;
    uint32_t procs;
    init.thread_count = threads;
    init.max_procs = max_procs;
    CHECK_OK(astral_init(&init));
    procs = astral_debug_go_max_procs();
    CHECK_OK(astral_shutdown());
    return procs;
}

int main(void) {
    const char *env = getenv("GOMAXPROCS");
    const uint32_t loaded = astral_debug_go_max_procs();
    AstralInit init = ASTRAL_INIT_DEFAULTS;
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE;
    float v[8] = {1, 0, 0, 0, 0, 1, 0, 0};
    uint64_t ids[2] = {1, 2};
    AstralResult r[2];
    uint32_t n = 0;

    CHECK(loaded >= 1);
    if (env != NULL) {
        CHECK(loaded == (uint32_t)atoi(env)); /* the environment, read at load */
    }
    CHECK(procs_after_init(0, 0) == loaded);                /* 0 leaves it */
    CHECK(procs_after_init(0, 1) == 1);                     /* serial: the caller alone */
    CHECK(astral_debug_go_max_procs() == 1);                /* until the next init */
    CHECK(procs_after_init(1, loaded + 4) == loaded);       /* never raised */
    CHECK(procs_after_init(0, 0) == loaded);                /* 0 restores it */

    /* Fewer than the workers + the caller: refused, nothing started. */
    init.thread_count = 2;
    init.max_procs = 2;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_init(&init), "max_procs 2: want at least the 2 workers + 1");
    CHECK_FAIL(ASTRAL_E_NOT_INITIALIZED, astral_shutdown(), "not initialized");

    /* Exactly the workers + the caller: queries run. */
    init.max_procs = 3;
    CHECK_OK(astral_init(&init));
    CHECK(astral_debug_go_max_procs() == (loaded < 3 ? loaded : 3));
    o.struct_size = sizeof o;
    o.dimension = 4;
    CHECK_OK(astral_index_create(&o, &h));
    CHECK_OK(astral_index_add(h, ids, 2, v, 8));
    CHECK_OK(astral_index_query(h, v + 4, 4, 2, r, 2, &n));
    CHECK(n == 2 && r[0].id == 2);
    CHECK_OK(astral_shutdown());

    /* A host built with the first layout (no max_procs) never caps. */
    init.thread_count = 0;
    init.max_procs = 1;
    init.struct_size = (uint32_t)offsetof(AstralInit, max_procs);
    CHECK_OK(astral_init(&init));
    CHECK(astral_debug_go_max_procs() == loaded);
    CHECK_OK(astral_shutdown());

    printf("GOMAXPROCS %u as loaded (environment: %s); capped and restored from astral_init\n",
           (unsigned)loaded, env != NULL ? env : "none");
    return check_report("test_procs");
}
