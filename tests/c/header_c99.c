/* astral.h compiles as strict C99 (-std=c99 -Wall -Wextra -Werror
 * -pedantic), twice in one unit, and its structs have the documented
 * layouts on this platform. */
#define ASTRAL_EXPERIMENTAL
#include "astral.h"
#include "astral.h"

#include <stddef.h>
#include <stdio.h>

/* C99 has no _Static_assert: a negative array size fails the build. */
#define LAYOUT_AT(line, cond) typedef char layout_check_##line[(cond) ? 1 : -1]
#define LAYOUT_LINE(line, cond) LAYOUT_AT(line, cond)
#define CHECK_LAYOUT(cond) LAYOUT_LINE(__LINE__, cond)

CHECK_LAYOUT(sizeof(AstralResult) == 16);
CHECK_LAYOUT(offsetof(AstralResult, score) == 8);
CHECK_LAYOUT(sizeof(AstralIndex) == 8);
CHECK_LAYOUT(sizeof(AstralStatus) == 4);
CHECK_LAYOUT(offsetof(AstralInit, struct_size) == 0);
CHECK_LAYOUT(offsetof(AstralIndexOptions, struct_size) == 0);
CHECK_LAYOUT(offsetof(AstralIndexOptions, flat_limit_bytes) == 24);
/* The first released layout ended at 40; fields appended since. */
CHECK_LAYOUT(offsetof(AstralIndexOptions, rerank_storage) == 40);
CHECK_LAYOUT(offsetof(AstralIndexOptions, rerank_factor) == 44);
CHECK_LAYOUT(offsetof(AstralIndexOptions, ivf_nlist) == 48);
CHECK_LAYOUT(offsetof(AstralIndexOptions, ivf_seed) == 56);
/* The fourth layout ended at 64; the auto index's IVF limit follows. */
CHECK_LAYOUT(offsetof(AstralIndexOptions, ivf_limit_records) == 64);
CHECK_LAYOUT(sizeof(AstralIndexOptions) == 72);
CHECK_LAYOUT(offsetof(AstralStats, struct_size) == 0);
CHECK_LAYOUT(offsetof(AstralStats, kernel) == 48);
/* The first released layout ended at 80. */
CHECK_LAYOUT(offsetof(AstralStats, rerank_storage) == 80);
CHECK_LAYOUT(offsetof(AstralStats, rerank_factor) == 84);
/* The second layout ended at 88; the scoped-search counters follow. */
CHECK_LAYOUT(offsetof(AstralStats, payload_count) == 88);
CHECK_LAYOUT(offsetof(AstralStats, graph_queries) == 128);
/* The third layout ended at 136; the tag-name count follows. */
CHECK_LAYOUT(offsetof(AstralStats, tag_name_count) == 136);
/* The fourth layout ended at 144; the IVF partitions follow. */
CHECK_LAYOUT(offsetof(AstralStats, ivf_partitions) == 144);
CHECK_LAYOUT(offsetof(AstralStats, ivf_dirty_partitions) == 148);
CHECK_LAYOUT(offsetof(AstralStats, ivf_largest_partition) == 152);
CHECK_LAYOUT(offsetof(AstralStats, ivf_largest_share) == 160);
CHECK_LAYOUT(sizeof(AstralStats) == 168);
CHECK_LAYOUT(offsetof(AstralQueryOptions, struct_size) == 0);
CHECK_LAYOUT(offsetof(AstralQueryOptions, owner) == 16);
CHECK_LAYOUT(offsetof(AstralQueryOptions, allow_ids) == 48);
CHECK_LAYOUT(offsetof(AstralQueryOptions, deny_count) == 72);
/* The first layout ended at 80; the ranking fields follow. */
CHECK_LAYOUT(offsetof(AstralQueryOptions, rank_relevance) == 80);
CHECK_LAYOUT(offsetof(AstralQueryOptions, reserved2) == 92);
CHECK_LAYOUT(offsetof(AstralQueryOptions, rank_decay) == 96);
CHECK_LAYOUT(offsetof(AstralQueryOptions, rank_now) == 104);
/* The second layout ended at 112; the IVF probes follow. */
CHECK_LAYOUT(offsetof(AstralQueryOptions, nprobe) == 112);
CHECK_LAYOUT(offsetof(AstralQueryOptions, reserved3) == 116);
CHECK_LAYOUT(sizeof(AstralQueryOptions) == 120);

int main(void) {
    AstralInit init = ASTRAL_INIT_DEFAULTS;
    AstralQueryOptions query = ASTRAL_QUERY_OPTIONS_INIT(10);
    (void)init;
    (void)query;
    if (!ASTRAL_VERSION_COMPATIBLE(astral_version_number())) {
        fprintf(stderr, "library %u does not serve header %s\n", (unsigned)astral_version_number(),
                ASTRAL_VERSION_STRING);
        return 1;
    }
    printf("astral.h %s is strict C99; library %u\n", ASTRAL_VERSION_STRING,
           (unsigned)astral_version_number());
    return 0;
}
