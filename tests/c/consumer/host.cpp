// host.cpp: host.c through astral.hpp (C++17), built against an installed
// Astral.
#include <astral.hpp>

#include <cstdio>

int main() {
    if (!astral::version_compatible()) {
        std::fprintf(stderr, "host: libastral %u does not serve header %s\n",
                     static_cast<unsigned>(astral_version_number()), ASTRAL_VERSION_STRING);
        return 1;
    }
    const std::uint64_t ids[3] = {10, 20, 30};
    const float vectors[3 * 4] = {
        1.0f, 0.0f, 0.0f, 0.0f,
        0.0f, 1.0f, 0.0f, 0.0f,
        0.7f, 0.7f, 0.0f, 0.0f,
    };
    const float query[4] = {0.9f, 0.1f, 0.0f, 0.0f};
    AstralResult results[2];
    std::uint32_t count = 0;
    if (astral::Status s = astral::init(); !s) {
        std::fprintf(stderr, "host: init: %s: %s\n", s.name(), astral::last_error().c_str());
        return 1;
    }
    bool ok = false;
    {
        astral::Index index;
        astral::Status s = astral::Index::create(4, index);
        if (s) s = index.add(ids, vectors);
        if (s) s = index.query(query, 2, results, count);
        if (!s) {
            std::fprintf(stderr, "host: %s: %s\n", s.name(), astral::last_error().c_str());
        } else if (count != 2 || results[0].id != 10 || results[1].id != 30) {
            std::fprintf(stderr, "host: query found %u hits, want ids 10 then 30\n",
                         static_cast<unsigned>(count));
        } else {
            std::printf("host (C++): libastral %s, nearest id %llu score %.3f\n", ASTRAL_VERSION_STRING,
                        static_cast<unsigned long long>(results[0].id), results[0].score);
            ok = true;
        }
    }
    (void)astral::shutdown();
    return ok ? 0 : 1;
}
