// load_test: what FAstralPluginModule::StartupModule does, with dlopen in
// place of FPlatformProcess: loads the staged libastral by path (nothing is
// linked), resolves every function the plugin's table lists, checks the
// version and runs init, an index, a query and shutdown through the
// resolved pointers, typed from astral.h with decltype as the table is.
// Usage: load_test LIBRARY NAME...   (the names of ASTRAL_PLUGIN_FUNCTIONS)
#include "astral.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>

template <class T>
static T resolve(void *lib, const char *name) {
    return reinterpret_cast<T>(dlsym(lib, name));
}

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: load_test LIBRARY NAME...\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
        std::printf("load_test: cannot load %s: %s\n", argv[1], dlerror());
        return 1;
    }
    int missing = 0;
    for (int i = 2; i < argc; i++) {
        if (dlsym(lib, argv[i]) == nullptr) {
            std::printf("load_test: %s lacks %s\n", argv[1], argv[i]);
            missing++;
        }
    }
    if (missing != 0) return 1;

    auto version = resolve<decltype(&astral_version_number)>(lib, "astral_version_number");
    auto init = resolve<decltype(&astral_init)>(lib, "astral_init");
    auto shutdown = resolve<decltype(&astral_shutdown)>(lib, "astral_shutdown");
    auto create = resolve<decltype(&astral_index_create)>(lib, "astral_index_create");
    auto add = resolve<decltype(&astral_index_add)>(lib, "astral_index_add");
    auto query = resolve<decltype(&astral_index_query)>(lib, "astral_index_query");
    auto last_error = resolve<decltype(&astral_last_error)>(lib, "astral_last_error");
    if (!version || !init || !shutdown || !create || !add || !query || !last_error) {
        std::printf("load_test: a function used here is missing\n");
        return 1;
    }
    const uint32_t v = version();
    if (!ASTRAL_VERSION_COMPATIBLE(v)) {
        std::printf("load_test: library version %u does not serve header %s\n", v, ASTRAL_VERSION_STRING);
        return 1;
    }
    AstralInit settings = ASTRAL_INIT_DEFAULTS;
    settings.thread_count = 3; // the plugin's default: 3 workers + the caller
    AstralIndexOptions options;
    std::memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.dimension = 4;
    options.kind = ASTRAL_KIND_FLAT;
    AstralIndex index = ASTRAL_INDEX_NONE;
    const uint64_t ids[2] = {10, 11};
    const float vectors[8] = {1, 0, 0, 0, 0, 1, 0, 0};
    const float probe[4] = {0, 1, 0, 0};
    AstralResult hits[2];
    uint32_t count = 0;
    char message[256] = "";
    if (init(&settings) != ASTRAL_OK || create(&options, &index) != ASTRAL_OK ||
        add(index, ids, 2, vectors, 8) != ASTRAL_OK || query(index, probe, 4, 2, hits, 2, &count) != ASTRAL_OK) {
        last_error(message, sizeof message);
        std::printf("load_test: a call failed: %s\n", message);
        return 1;
    }
    if (count != 2 || hits[0].id != 11) {
        std::printf("load_test: unexpected hits (%u, first id %llu)\n", count, (unsigned long long)hits[0].id);
        return 1;
    }
    if (shutdown() != ASTRAL_OK) return 1;
    // Never dlclose: a Go runtime cannot be unloaded (the plugin keeps it too).
    std::printf("load_test: %s version %u, %d functions resolved, query through the table ok\n", argv[1], v,
                argc - 2);
    return 0;
}
