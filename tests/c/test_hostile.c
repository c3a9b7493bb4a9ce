/* What a careless or hostile host does to the C ABI (issue 16):
 *   - struct_size from 0 to 4096 on every struct (AstralQueryOptions too),
 *     each struct ending at a PROT_NONE page: the library never touches
 *     a byte past its own size, and leaves an output struct's tail as the
 *     host had it;
 *   - paths naming a FIFO, a device, a directory, a socket or a symbolic
 *     link: load and save fail with ASTRAL_E_IO at once (a watchdog
 *     fails the test on a hang) and nothing is replaced; a save keeps the
 *     replaced file's permission bits;
 *   - a message longer than the last-error buffer keeps its reason, and
 *     astral_last_error's length is the whole message's;
 *   - tag names and vectors read and written exactly to their bounds. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "check.h"

enum { DIM = 8, N = 40, MAX_STRUCT_SIZE = 4096 };

/* ---- struct_size ---------------------------------------------------------- */

static unsigned char *guarded; /* a read-write page followed by a PROT_NONE one */
static size_t page_size;

/* Where an object of size bytes ends exactly at the guard page. */
static void *against_guard(size_t size) { return guarded + page_size - size; }

static void setup_guard(void) {
    page_size = (size_t)sysconf(_SC_PAGESIZE);
    guarded = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(guarded != MAP_FAILED);
    CHECK(mprotect(guarded + page_size, page_size, PROT_NONE) == 0);
}

/* astral_init reads AstralInit: sizes below the first layout (without
 * max_procs) are refused, every other one accepted without a read past the
 * struct. */
static void test_init_sizes(void) {
    AstralInit *init = against_guard(sizeof *init);
    const uint32_t first = (uint32_t)offsetof(AstralInit, max_procs);
    int bad = 0;
    for (uint32_t size = 0; size <= MAX_STRUCT_SIZE; size++) {
        AstralInit want = ASTRAL_INIT_DEFAULTS;
        AstralStatus st;
        want.struct_size = size;
        want.thread_count = 0; /* serial: each init is quick */
        *init = want;
        st = astral_init(init);
        if (size < first) {
            bad += st != ASTRAL_E_INVALID_ARGUMENT;
        } else {
            bad += st != ASTRAL_OK || astral_shutdown() != ASTRAL_OK;
        }
        bad += memcmp(init, &want, sizeof want) != 0; /* input is never written */
    }
    CHECK(bad == 0);
    init->struct_size = MAX_STRUCT_SIZE + 1;
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_init(init), "struct_size 4097");
}

static void test_options_sizes(void) {
    AstralIndexOptions *o = against_guard(sizeof *o);
    const uint32_t first = (uint32_t)offsetof(AstralIndexOptions, rerank_storage);
    int bad = 0;
    for (uint32_t size = 0; size <= MAX_STRUCT_SIZE; size++) {
        AstralIndexOptions want = {0};
        AstralIndex h = 77;
        AstralStatus st;
        want.struct_size = size;
        want.dimension = DIM;
        want.rerank_storage = ASTRAL_STORAGE_F16;
        *o = want;
        st = astral_index_create(o, &h);
        if (size < first) {
            bad += st != ASTRAL_E_INVALID_ARGUMENT || h != ASTRAL_INDEX_NONE;
        } else {
            AstralStats s = {0};
            s.struct_size = sizeof s;
            bad += st != ASTRAL_OK || astral_index_stats(h, &s) != ASTRAL_OK;
            /* The rerank field is read only when the host's struct has it. */
            bad += size == first && s.rerank_storage != 0;
            bad += size >= first + 4 && s.rerank_storage != ASTRAL_STORAGE_F16;
            bad += astral_index_destroy(h) != ASTRAL_OK;
        }
        bad += memcmp(o, &want, sizeof want) != 0;
    }
    CHECK(bad == 0);
}

/* An index of DIM with ids 1 to 3, each holding tag 1. */
static AstralIndex small_index_for_sizes(void) {
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE;
    uint64_t ids[3] = {1, 2, 3}, tags[3] = {1, 1, 1};
    float v[3 * DIM];
    test_fill(v, 3 * DIM, 3);
    o.struct_size = sizeof o;
    o.dimension = DIM;
    CHECK_OK(astral_index_create(&o, &h));
    CHECK_OK(astral_index_add_ex(h, ids, 3, v, 3 * DIM, tags, NULL, NULL, NULL));
    return h;
}

/* astral_index_stats writes AstralStats: up to min(struct_size, its own
 * size), never past; struct_size stays as the host set it. */
static void test_stats_sizes(void) {
    const uint32_t first = (uint32_t)offsetof(AstralStats, rerank_storage);
    enum { TAIL = MAX_STRUCT_SIZE + 64 };
    unsigned char *roomy = malloc(TAIL);
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE;
    int bad = 0;
    CHECK(roomy != NULL);
    o.struct_size = sizeof o;
    o.dimension = DIM;
    o.rerank_storage = ASTRAL_STORAGE_F32;
    CHECK_OK(astral_index_create(&o, &h));
    for (uint32_t size = 0; size <= MAX_STRUCT_SIZE; size++) {
        /* Against the guard page: any write past the struct faults. */
        unsigned char *p = against_guard(sizeof(AstralStats));
        AstralStats *s = (AstralStats *)(void *)p;
        AstralStatus st;
        size_t written = size < sizeof(AstralStats) ? size : sizeof(AstralStats);
        memset(p, 0xA5, sizeof(AstralStats));
        s->struct_size = size;
        st = astral_index_stats(h, s);
        if (size < first) {
            bad += st != ASTRAL_E_INVALID_ARGUMENT;
            written = sizeof s->struct_size;
        } else {
            bad += st != ASTRAL_OK || s->dimension != DIM || s->struct_size != size;
            bad += size >= sizeof(AstralStats) && s->rerank_factor != ASTRAL_DEFAULT_RERANK_FACTOR;
        }
        for (size_t i = written; i < sizeof(AstralStats); i++) {
            bad += p[i] != 0xA5;
        }
        /* In a larger buffer: the bytes past the library's size are the
         * host's, left as they were. */
        memset(roomy, 0x5A, TAIL);
        s = (AstralStats *)(void *)roomy;
        s->struct_size = size;
        st = astral_index_stats(h, s);
        bad += st != (size < first ? ASTRAL_E_INVALID_ARGUMENT : ASTRAL_OK);
        for (size_t i = size < first ? sizeof s->struct_size : written; i < TAIL; i++) {
            bad += roomy[i] != 0x5A;
        }
    }
    CHECK(bad == 0);
    CHECK_OK(astral_index_destroy(h));
    free(roomy);
}

/* astral_index_query_ex and _batch_ex read AstralQueryOptions: sizes below
 * the first layout (80 bytes, before the ranking fields) are refused, every other one accepted
 * without a read past the struct, and the struct is never written. */
static void test_query_options_sizes(void) {
    AstralQueryOptions *o = against_guard(sizeof *o);
    AstralIndex h = small_index_for_sizes();
    float q[DIM] = {1};
    const uint64_t deny = 1;
    int bad = 0;
    for (uint32_t size = 0; size <= MAX_STRUCT_SIZE; size++) {
        AstralQueryOptions want = ASTRAL_QUERY_OPTIONS_INIT(3);
        AstralResult r[3];
        uint32_t n = 99, plan = 99, counts[1] = {99};
        AstralStatus st, bst;
        want.struct_size = size;
        want.any_tags = 1;
        want.deny_ids = &deny;
        want.deny_count = 1;
        *o = want;
        st = astral_index_query_ex(h, q, DIM, o, r, 3, &n, &plan);
        bst = astral_index_query_batch_ex(h, q, 1, DIM, o, r, 3, counts, &plan);
        if (size < offsetof(AstralQueryOptions, rank_relevance)) { /* the first layout: 80 */
            bad += st != ASTRAL_E_INVALID_ARGUMENT || bst != ASTRAL_E_INVALID_ARGUMENT || n != 0 || counts[0] != 0;
        } else {
            /* Ids 2 and 3: id 1 is denied. */
            bad += st != ASTRAL_OK || bst != ASTRAL_OK || n != 2 || counts[0] != 2;
        }
        bad += memcmp(o, &want, sizeof want) != 0;
    }
    CHECK(bad == 0);
    CHECK_OK(astral_index_destroy(h));
}

/* The record calls write and read exactly their own bytes: a tag name of
 * size + 1 bytes, a vector of dimension floats, each ending at the guard
 * page; a name without its NUL ending there is read no further than the
 * longest name and one byte. */
static void test_record_buffers(void) {
    AstralIndex h = small_index_for_sizes();
    char *name64 = against_guard(ASTRAL_MAX_TAG_NAME + 1);
    char *unterminated = against_guard(ASTRAL_MAX_TAG_NAME + 1);
    float *v = against_guard(DIM * sizeof(float));
    size_t size = 0;
    uint32_t bit = 99;
    memset(name64, 'g', ASTRAL_MAX_TAG_NAME);
    name64[ASTRAL_MAX_TAG_NAME] = 0;
    CHECK_OK(astral_index_set_tag_name(h, 7, name64));
    CHECK_OK(astral_index_find_tag(h, name64, &bit));
    CHECK(bit == 7);
    memset(name64, 0, ASTRAL_MAX_TAG_NAME + 1);
    CHECK_OK(astral_index_get_tag_name(h, 7, name64, ASTRAL_MAX_TAG_NAME + 1, &size));
    CHECK(size == ASTRAL_MAX_TAG_NAME && strlen(name64) == ASTRAL_MAX_TAG_NAME);
    memset(unterminated, 'u', ASTRAL_MAX_TAG_NAME + 1); /* no NUL before the guard */
    CHECK_FAIL(ASTRAL_E_INVALID_ARGUMENT, astral_index_set_tag_name(h, 8, unterminated), "longer than 64 bytes");
    CHECK_FAIL(ASTRAL_E_NOT_FOUND, astral_index_find_tag(h, unterminated, &bit), "longer than 64 bytes");
    CHECK_OK(astral_index_get_vector(h, 1, v, DIM));
    CHECK(fabsf(v[0]) <= 1 && fabsf(v[DIM - 1]) <= 1); /* a unit vector (cosine) */
    CHECK_OK(astral_index_destroy(h));
}

/* ---- special files -------------------------------------------------------- */

static void on_alarm(int sig) {
    static const char msg[] = "test_hostile: a call blocked for 60 s (a FIFO opened for reading?)\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) {
        _exit(3);
    }
    _exit(2);
}

/* A call that blocks ends the test instead of hanging it. The handler is
 * installed with SA_ONSTACK, as every host handler must be (astral.h). */
static void arm_watchdog(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    alarm(60);
}

static char dir[64];
static char path_buf[9][256];

static const char *in_dir(int slot, const char *name) {
    snprintf(path_buf[slot], sizeof path_buf[slot], "%s/%s", dir, name);
    return path_buf[slot];
}

static AstralIndex small_index(void) {
    AstralIndexOptions o = {0};
    AstralIndex h = ASTRAL_INDEX_NONE;
    uint64_t ids[N];
    float v[N * DIM];
    for (int i = 0; i < N; i++) {
        ids[i] = (uint64_t)i + 1;
    }
    test_fill(v, N * DIM, 7);
    o.struct_size = sizeof o;
    o.dimension = DIM;
    CHECK_OK(astral_index_create(&o, &h));
    CHECK_OK(astral_index_add(h, ids, N, v, N * DIM));
    return h;
}

/* Every way of loading path fails with IO naming what it is. */
static void check_load_refused(const char *path, const char *is) {
    char why[320];
    AstralIndex h = 77;
    snprintf(why, sizeof why, "%s is %s: only a regular file is loaded", path, is);
    CHECK_FAIL(ASTRAL_E_IO, astral_index_load(path, &h), why);
    CHECK(h == ASTRAL_INDEX_NONE);
    CHECK_FAIL(ASTRAL_E_IO, astral_index_load_ex(path, 0, &h), why);
    CHECK_FAIL(ASTRAL_E_IO, astral_index_load_ex(path, ASTRAL_LOAD_VERIFY_IN_BACKGROUND, &h), why);
    CHECK(h == ASTRAL_INDEX_NONE);
}

/* A save over path fails with IO and leaves it as it was (same type,
 * same inode). */
static void check_save_refused(AstralIndex h, const char *path) {
    struct stat before, after;
    CHECK(lstat(path, &before) == 0);
    CHECK_FAIL(ASTRAL_E_IO, astral_index_save(h, path),
               "only a regular file is replaced by a save (nothing was written)");
    CHECK(lstat(path, &after) == 0);
    CHECK(before.st_mode == after.st_mode && before.st_ino == after.st_ino &&
          before.st_rdev == after.st_rdev);
}

static void test_special_files(void) {
    AstralIndex h = small_index(), loaded = ASTRAL_INDEX_NONE;
    const char *fifo = in_dir(0, "fifo"), *sub = in_dir(1, "directory"), *sock = in_dir(2, "socket");
    const char *node = in_dir(3, "null"), *real = in_dir(4, "real.idx");
    const char *link_fifo = in_dir(5, "link-to-fifo"), *link_real = in_dir(6, "link-to-real.idx");
    const char *dangling = in_dir(7, "dangling.idx");
    struct sockaddr_un addr;
    int sfd = socket(AF_UNIX, SOCK_STREAM, 0);
    int own_node;

    CHECK(mkfifo(fifo, 0644) == 0);
    CHECK(mkdir(sub, 0755) == 0);
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    CHECK(strlen(sock) < sizeof addr.sun_path);
    memcpy(addr.sun_path, sock, strlen(sock) < sizeof addr.sun_path ? strlen(sock) : 0);
    CHECK(sfd >= 0 && bind(sfd, (struct sockaddr *)&addr, sizeof addr) == 0);
    /* The same device as /dev/null, where a save may try it (root only). */
    own_node = mknod(node, S_IFCHR | 0666, makedev(1, 3)) == 0;
    CHECK_OK(astral_index_save(h, real));
    CHECK(symlink("fifo", link_fifo) == 0);
    CHECK(symlink("real.idx", link_real) == 0);
    CHECK(symlink("nowhere.idx", dangling) == 0);

    arm_watchdog();
    check_load_refused(fifo, "a FIFO");
    check_load_refused(link_fifo, "a FIFO");
    check_load_refused("/dev/null", "a character device");
    check_load_refused(sub, "a directory");
    check_load_refused(sock, "a socket");
    CHECK_OK(astral_index_load(link_real, &loaded)); /* a link to an index file is followed */
    CHECK_OK(astral_index_destroy(loaded));

    check_save_refused(h, fifo);
    check_save_refused(h, sub);
    check_save_refused(h, sock);
    check_save_refused(h, link_fifo);
    check_save_refused(h, link_real);
    check_save_refused(h, dangling);
    if (own_node) {
        check_save_refused(h, node);
        CHECK(unlink(node) == 0);
    } else {
        printf("test_hostile: no mknod here; a device node is tried for loads only (/dev/null)\n");
    }
    {
        struct stat st;
        CHECK(lstat(in_dir(8, "nowhere.idx"), &st) != 0 && errno == ENOENT); /* links not followed */
    }
    alarm(0);

    /* The replaced file keeps its permission bits, whatever the umask. */
    {
        const mode_t modes[] = {0600, 0640, 0444};
        for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
            struct stat st;
            int fd = open(real, O_WRONLY | O_TRUNC);
            CHECK(fd >= 0 && fchmod(fd, modes[i]) == 0 && close(fd) == 0);
            CHECK_OK(astral_index_save(h, real));
            CHECK(stat(real, &st) == 0 && (st.st_mode & 07777) == modes[i] && st.st_size > 0);
        }
    }
    CHECK_OK(astral_index_load(real, &loaded));
    CHECK_OK(astral_index_destroy(loaded));

    CHECK(close(sfd) == 0);
    unlink(sock);
    unlink(fifo);
    rmdir(sub);
    unlink(link_fifo);
    unlink(link_real);
    unlink(dangling);
    unlink(real);
    CHECK(rmdir(dir) == 0); /* nothing else left behind: no temporary file */
    CHECK_OK(astral_index_destroy(h));
}

/* ---- last error ----------------------------------------------------------- */

static void test_long_message(void) {
    enum { LONG = 3000 };
    char *path = malloc(LONG + 1), *msg;
    AstralIndex h;
    size_t n, got;
    const char *reason = "/x.idx: no such file or directory";
    CHECK(path != NULL);
    for (int i = 0; i < LONG; i += 2) {
        path[i] = '/';
        path[i + 1] = 'd';
    }
    memcpy(path + LONG - 6, "/x.idx", 7);
    CHECK(astral_index_load(path, &h) == ASTRAL_E_IO);
    n = astral_last_error(NULL, 0);
    CHECK(n > 0 && n < 1024);
    msg = malloc(n + 1);
    CHECK(msg != NULL);
    got = astral_last_error(msg, n + 1);
    CHECK(got == n && strlen(msg) == n);
    CHECK(strncmp(msg, "astral_index_load: ", 19) == 0);
    CHECK(n > strlen(reason) && strcmp(msg + n - strlen(reason), reason) == 0);
    CHECK(strstr(msg, " [...] ") != NULL);
    free(msg);
    free(path);
}

int main(void) {
    setup_guard();
    test_init_sizes();
    snprintf(dir, sizeof dir, "/tmp/astral-hostile-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    CHECK_OK(astral_init(NULL));
    test_options_sizes();
    test_stats_sizes();
    test_query_options_sizes();
    test_record_buffers();
    test_special_files();
    test_long_message();
    CHECK_OK(astral_shutdown());
    return check_report("test_hostile");
}
