// quickstart.cpp: Astral from C++17 through astral.hpp. An int8 index with
// an f32 rerank copy, a batch of two queries, then a save into memory (a
// save game) and a load that answers with the same bits.
#include <cstdio>
#include <cstring>
#include <vector>

#include "astral.hpp"

static bool check(astral::Status st) {
    if (!st) {
        std::fprintf(stderr, "astral: %s: %s\n", st.name(), astral::last_error().c_str());
    }
    return st.ok();
}

int main() {
    if (!astral::version_compatible() || !check(astral::init(1))) { // 1 worker + the caller
        return 1;
    }
    astral::Index memory;
    const std::uint64_t ids[] = {1, 2, 3};
    const float vectors[] = {
        0.3f, 0.2f, 0.1f,
        0.1f, 0.2f, 0.3f,
        -0.2f, 0.1f, 0.0f,
    };
    bool ok = check(astral::Index::create(astral::IndexOptions(3)
                                              .storage(ASTRAL_STORAGE_INT8)
                                              .rerank(ASTRAL_STORAGE_F32, 4),
                                          memory)) &&
              check(memory.add(ids, vectors));

    const std::uint32_t k = 2;
    const float queries[] = {0.3f, 0.2f, 0.1f, /* second query */ 0.0f, 0.1f, 0.3f};
    AstralResult hits[2 * k];
    std::uint32_t counts[2];
    ok = ok && check(memory.query_batch(queries, k, hits, counts));
    for (std::uint32_t q = 0; ok && q < 2; q++) {
        for (std::uint32_t i = 0; i < counts[q]; i++) {
            const AstralResult &h = hits[q * k + i];
            std::printf("query %u: id %llu score %.4f\n", q, static_cast<unsigned long long>(h.id), h.score);
        }
    }

    // An empty buffer asks for the size; then save and load it back.
    std::size_t size = 0;
    std::vector<unsigned char> saved;
    if (ok && memory.save(astral::Span<unsigned char>(), size) == ASTRAL_E_BUFFER_TOO_SMALL) {
        saved.resize(size);
        ok = check(memory.save(saved, size));
    }
    astral::Index loaded;
    AstralResult again[k];
    std::uint32_t count = 0;
    ok = ok && check(astral::Index::load_from_memory(saved.data(), size, loaded)) &&
         check(loaded.query(astral::Span<const float>(queries, 3), k, again, count));
    if (ok) {
        bool same = count == counts[0];
        for (std::uint32_t i = 0; same && i < count; i++) { // ids and score bits
            same = again[i].id == hits[i].id && std::memcmp(&again[i].score, &hits[i].score, sizeof(float)) == 0;
        }
        std::printf("saved %zu bytes; loaded answers the same: %s\n", size, same ? "yes" : "no");
        ok = same;
    }
    (void)memory.reset();
    (void)loaded.reset();
    (void)astral::shutdown();
    return ok ? 0 : 1;
}
