/* A host linked with the static archive may use the names of cgo's glue
 * for its own functions and data: the archive defines no global symbol
 * but the header's functions (scripts/localize-archive.sh). Before, this
 * program failed to link ("multiple definition of `crosscall2'"). */

#include "check.h"

/* Generic names that Go 1.2x's c-archive defined globally. */
int fatalf_calls;
void fatalf(const char *format, ...);
void fatalf(const char *format, ...) {
    (void)format;
    fatalf_calls++;
}
int crosscall2 = 2;
int x_cgo_init = 3;
char *capi_error_buffer(void);
char *capi_error_buffer(void) { return NULL; }
const char *capi_status_string(AstralStatus status);
const char *capi_status_string(AstralStatus status) { return status == 0 ? "the host's" : "?"; }

int main(void) {
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE;
    CHECK_OK(astral_init(NULL));
    o.struct_size = sizeof o;
    o.dimension = 4;
    CHECK_OK(astral_index_create(&o, &h));
    /* The library's own helpers still serve it, not the host's. */
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_count(h, NULL), "out_count is NULL");
    CHECK(strcmp(astral_status_string(ASTRAL_OK), "ok") == 0);
    fatalf("%d", 1);
    CHECK(fatalf_calls == 1 && crosscall2 == 2 && x_cgo_init == 3);
    CHECK(strcmp(capi_status_string(0), "the host's") == 0 && capi_error_buffer() == NULL);
    CHECK_OK(astral_index_destroy(h));
    CHECK_OK(astral_shutdown());
    return check_report("archive_names");
}
