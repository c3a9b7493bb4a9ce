// astral.hpp: a header-only C++17 wrapper over astral.h. RAII index
// ownership, pointer + size spans in, statuses out; no exceptions, no
// allocation (except last_error's std::string and the std::vector payload
// overload).
//
// Hosts that load the library at run time (Unreal on Windows) define
// ASTRAL_HPP_CALL(name) before including this header to route every call
// through their function table, e.g.
//   #define ASTRAL_HPP_CALL(name) (GAstralApi.name)
#ifndef ASTRAL_HPP
#define ASTRAL_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "astral.h"

#ifndef ASTRAL_HPP_CALL
#define ASTRAL_HPP_CALL(name) (::name)
#endif

namespace astral {

// Span is a pointer and a length: what std::span is in C++20.
template <class T>
class Span {
public:
    constexpr Span() noexcept = default;
    constexpr Span(T *data, std::size_t size) noexcept : data_(data), size_(size) {}
    template <std::size_t N>
    constexpr Span(T (&array)[N]) noexcept : data_(array), size_(N) {}
    // Any contiguous container with data() and size(): std::vector,
    // std::array, std::string_view-like types.
    template <class C,
              class = std::enable_if_t<
                  std::is_convertible_v<decltype(std::declval<C &>().data()), T *> &&
                  std::is_convertible_v<decltype(std::declval<C &>().size()), std::size_t>>>
    constexpr Span(C &container) noexcept : data_(container.data()), size_(container.size()) {}

    constexpr T *data() const noexcept { return data_; }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr bool empty() const noexcept { return size_ == 0; }
    constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }
    constexpr T *begin() const noexcept { return data_; }
    constexpr T *end() const noexcept { return data_ + size_; }
    constexpr Span first(std::size_t n) const noexcept { return Span(data_, n < size_ ? n : size_); }

private:
    T *data_ = nullptr;
    std::size_t size_ = 0;
};

// Status is an AstralStatus that must be looked at.
class [[nodiscard]] Status {
public:
    constexpr Status(AstralStatus code = ASTRAL_OK) noexcept : code_(code) {}
    constexpr bool ok() const noexcept { return code_ == ASTRAL_OK; }
    constexpr explicit operator bool() const noexcept { return ok(); }
    constexpr AstralStatus code() const noexcept { return code_; }
    // The static name of the code, e.g. "dimension mismatch".
    const char *name() const noexcept { return ASTRAL_HPP_CALL(astral_status_string)(code_); }
    friend constexpr bool operator==(Status a, Status b) noexcept { return a.code_ == b.code_; }
    friend constexpr bool operator!=(Status a, Status b) noexcept { return a.code_ != b.code_; }

private:
    AstralStatus code_;
};

// The calling thread's last failure message.
inline std::string last_error() {
    char buf[256];
    std::size_t n = ASTRAL_HPP_CALL(astral_last_error)(buf, sizeof buf);
    if (n < sizeof buf) {
        return std::string(buf, n);
    }
    std::string s(n + 1, '\0');
    n = ASTRAL_HPP_CALL(astral_last_error)(&s[0], s.size());
    s.resize(n < s.size() ? n : s.size() - 1);
    return s;
}

// True when the loaded library serves this header (same major version, at
// least as new).
inline bool version_compatible() noexcept {
    return ASTRAL_VERSION_COMPATIBLE(ASTRAL_HPP_CALL(astral_version_number)());
}

inline AstralInit init_defaults() noexcept {
    AstralInit init = ASTRAL_INIT_DEFAULTS;
    return init;
}

// Starts the runtime with thread_count workers (the caller not counted).
inline Status init(std::int32_t thread_count = ASTRAL_THREADS_AUTO) noexcept {
    AstralInit init = init_defaults();
    init.thread_count = thread_count;
    return ASTRAL_HPP_CALL(astral_init)(&init);
}

inline Status init(const AstralInit &init) noexcept { return ASTRAL_HPP_CALL(astral_init)(&init); }

inline Status shutdown() noexcept { return ASTRAL_HPP_CALL(astral_shutdown)(); }

// Options for an index of the given dimension; every other field is its
// default (cosine, auto, E5M2, no rerank copy). IndexOptions below sets
// them by name.
inline AstralIndexOptions index_options(std::uint32_t dimension) noexcept {
    AstralIndexOptions o{};
    o.struct_size = static_cast<std::uint32_t>(sizeof o);
    o.dimension = dimension;
    return o;
}

// IndexOptions builds an AstralIndexOptions: every field starts at its
// default (cosine, auto, E5M2, no rerank copy) and each setter returns the
// builder, e.g.
//   astral::Index::create(astral::IndexOptions(384)
//                             .storage(ASTRAL_STORAGE_INT8)
//                             .rerank(ASTRAL_STORAGE_F16), index);
// Storage: E5M2 (default) or INT8 for one byte per component (INT8 nearer
// F16's recall), F16/F32 when memory allows; a rerank F16/F32 copy, 4
// candidates per result, recovers the exact ranking over a one-byte kind.
// The library validates every value (astral_index_create).
class IndexOptions {
public:
    explicit IndexOptions(std::uint32_t dimension) noexcept : o_(index_options(dimension)) {}
    IndexOptions &metric(std::uint32_t value) noexcept {
        o_.metric = value;
        return *this;
    }
    IndexOptions &kind(std::uint32_t value) noexcept {
        o_.kind = value;
        return *this;
    }
    // ASTRAL_STORAGE_*: how the searched records store a component.
    IndexOptions &storage(std::uint32_t value) noexcept {
        o_.storage = value;
        return *this;
    }
    // A second copy in copy_storage (ASTRAL_STORAGE_F16 or _F32) that each
    // query rescores factor * k candidates against (factor 1 to
    // ASTRAL_MAX_RERANK_FACTOR; 0 = ASTRAL_DEFAULT_RERANK_FACTOR).
    // rerank(0) removes it.
    IndexOptions &rerank(std::uint32_t copy_storage, std::uint32_t factor = 0) noexcept {
        o_.rerank_storage = copy_storage;
        o_.rerank_factor = factor;
        return *this;
    }
    // HNSW parameters; 0 = the library's default.
    IndexOptions &hnsw(std::uint32_t m, std::uint32_t ef_construction = 0,
                       std::uint32_t ef_search = 0) noexcept {
        o_.hnsw_m = m;
        o_.hnsw_ef_construction = ef_construction;
        o_.hnsw_ef_search = ef_search;
        return *this;
    }
    IndexOptions &flat_limit_bytes(std::uint64_t bytes) noexcept {
        o_.flat_limit_bytes = bytes;
        return *this;
    }
    // IVF parameters (with kind(ASTRAL_KIND_IVF), or for the IVF an auto
    // index grows into); 0 = the library's default (auto: derived).
    IndexOptions &ivf(std::uint32_t nlist, std::uint32_t nprobe = 0, std::uint64_t seed = 0) noexcept {
        o_.ivf_nlist = nlist;
        o_.ivf_nprobe = nprobe;
        o_.ivf_seed = seed;
        return *this;
    }
    // Where an auto index switches to IVF, in records; 0 = the default,
    // ASTRAL_IVF_LIMIT_NEVER = never.
    IndexOptions &ivf_limit_records(std::int64_t records) noexcept {
        o_.ivf_limit_records = records;
        return *this;
    }

    const AstralIndexOptions &get() const noexcept { return o_; }
    operator const AstralIndexOptions &() const noexcept { return o_; }

private:
    AstralIndexOptions o_;
};

// QueryOptions builds an AstralQueryOptions: k results, no filter, the
// index's beam; each setter narrows the filter (conditions combine with
// AND) and returns the builder, e.g.
//   index.query(q, astral::QueryOptions(10).owner(npc).no_tags(kSelf).deny(self_ids),
//               out, count, plan);
// The allow and deny spans are read by each query, not copied: keep their
// memory alive while the options are used. The library validates every
// value (astral_index_query_ex).
class QueryOptions {
public:
    explicit QueryOptions(std::uint32_t k) noexcept {
        o_.struct_size = static_cast<std::uint32_t>(sizeof o_);
        o_.k = k;
    }
    QueryOptions &k(std::uint32_t value) noexcept {
        o_.k = value;
        return *this;
    }
    // HNSW beam; 0 = the index's hnsw_ef_search.
    QueryOptions &ef(std::uint32_t value) noexcept {
        o_.ef = value;
        return *this;
    }
    // IVF partitions scanned; 0 = the index's ivf_nprobe.
    QueryOptions &nprobe(std::uint32_t value) noexcept {
        o_.nprobe = value;
        return *this;
    }
    // Only records of this owner; 0: any owner.
    QueryOptions &owner(std::uint64_t value) noexcept {
        o_.owner = value;
        return *this;
    }
    // Only records holding every one of these tags.
    QueryOptions &all_tags(std::uint64_t mask) noexcept {
        o_.all_tags = mask;
        return *this;
    }
    // Only records holding at least one of these; 0: no condition.
    QueryOptions &any_tags(std::uint64_t mask) noexcept {
        o_.any_tags = mask;
        return *this;
    }
    // Only records holding none of these.
    QueryOptions &no_tags(std::uint64_t mask) noexcept {
        o_.no_tags = mask;
        return *this;
    }
    // Only these ids. An empty span is an allowlist that matches nothing
    // (no_allowlist() removes the condition).
    QueryOptions &allow(Span<const std::uint64_t> ids) noexcept {
        static const std::uint64_t none = 0;
        o_.allow_ids = ids.data() != nullptr ? ids.data() : &none;
        o_.allow_count = ids.size();
        return *this;
    }
    QueryOptions &no_allowlist() noexcept {
        o_.allow_ids = nullptr;
        o_.allow_count = 0;
        return *this;
    }
    // Never these ids (e.g. the asking character's own).
    QueryOptions &deny(Span<const std::uint64_t> ids) noexcept {
        o_.deny_ids = ids.size() != 0 ? ids.data() : nullptr;
        o_.deny_count = ids.size();
        return *this;
    }

    // Memory ranking: score = relevance*similarity +
    // recency*decay^(now - time) + importance*importance (on when recency
    // or importance is not 0). decay is per time unit, in (0, 1].
    QueryOptions &rank(float relevance, float recency, float importance, double decay, std::int64_t now) noexcept {
        o_.rank_relevance = relevance;
        o_.rank_recency = recency;
        o_.rank_importance = importance;
        o_.rank_decay = decay;
        o_.rank_now = now;
        return *this;
    }

    const AstralQueryOptions &get() const noexcept { return o_; }
    operator const AstralQueryOptions &() const noexcept { return o_; }

private:
    AstralQueryOptions o_{};
};

// Index owns one index handle: move-only, destroyed with the object.
class Index {
public:
    Index() noexcept = default;
    ~Index() { (void)reset(); }
    Index(Index &&other) noexcept
        : handle_(std::exchange(other.handle_, ASTRAL_INDEX_NONE)), dimension_(other.dimension_) {}
    Index &operator=(Index &&other) noexcept {
        if (this != &other) {
            (void)reset();
            handle_ = std::exchange(other.handle_, ASTRAL_INDEX_NONE);
            dimension_ = other.dimension_;
        }
        return *this;
    }
    Index(const Index &) = delete;
    Index &operator=(const Index &) = delete;

    // Creates an index into out, replacing (destroying) what out held.
    static Status create(const AstralIndexOptions &options, Index &out) noexcept {
        AstralIndex h = ASTRAL_INDEX_NONE;
        Status st = ASTRAL_HPP_CALL(astral_index_create)(&options, &h);
        if (st.ok()) {
            (void)out.reset();
            out.handle_ = h;
            out.dimension_ = options.dimension;
        }
        return st;
    }
    static Status create(std::uint32_t dimension, Index &out) noexcept {
        return create(index_options(dimension), out);
    }

    // Loads the index file at path (UTF-8) into out, replacing what out held:
    // mapped, checked whole unless flags has ASTRAL_LOAD_VERIFY_IN_BACKGROUND
    // (then verify_loaded() waits for the rest). astral_index_load_ex.
    static Status load(const char *path, Index &out, std::uint32_t flags = 0) noexcept {
        AstralIndex h = ASTRAL_INDEX_NONE;
        Status st = ASTRAL_HPP_CALL(astral_index_load_ex)(path, flags, &h);
        return st.ok() ? adopt(h, out) : st;
    }

    // Loads the index saved in data (size bytes, copied: data may go on
    // return) into out, replacing what out held.
    static Status load_from_memory(const void *data, std::size_t size, Index &out) noexcept {
        AstralIndex h = ASTRAL_INDEX_NONE;
        Status st = ASTRAL_HPP_CALL(astral_index_load_from_memory)(data, size, &h);
        return st.ok() ? adopt(h, out) : st;
    }

    bool valid() const noexcept { return handle_ != ASTRAL_INDEX_NONE; }
    explicit operator bool() const noexcept { return valid(); }
    AstralIndex handle() const noexcept { return handle_; }
    std::uint32_t dimension() const noexcept { return dimension_; }

    // Gives up ownership without destroying.
    AstralIndex release() noexcept { return std::exchange(handle_, ASTRAL_INDEX_NONE); }

    // Destroys the index now (a no-op when empty).
    Status reset() noexcept {
        return ASTRAL_HPP_CALL(astral_index_destroy)(std::exchange(handle_, ASTRAL_INDEX_NONE));
    }

    // Stores ids.size() vectors; vectors holds ids.size() * dimension() floats.
    Status add(Span<const std::uint64_t> ids, Span<const float> vectors) noexcept {
        return ASTRAL_HPP_CALL(astral_index_add)(handle_, ids.data(), ids.size(), vectors.data(),
                                                 vectors.size());
    }

    // add with attributes (astral_index_add_ex): tags and owners are empty
    // (all 0) or hold one entry per id; payloads and payload_sizes are
    // both empty (none) or one per id, payload i being payload_sizes[i]
    // bytes at payloads[i] (up to ASTRAL_MAX_PAYLOAD, copied). Spans of
    // another length are refused with ASTRAL_E_INVALID_ARGUMENT before
    // the library is called (last_error() is then not set).
    Status add(Span<const std::uint64_t> ids, Span<const float> vectors, Span<const std::uint64_t> tags,
               Span<const std::uint64_t> owners = {}, Span<const void *const> payloads = {},
               Span<const std::uint32_t> payload_sizes = {}) noexcept {
        if (!attributes_fit(ids.size(), tags, owners, payloads, payload_sizes)) {
            return ASTRAL_E_INVALID_ARGUMENT;
        }
        return ASTRAL_HPP_CALL(astral_index_add_ex)(
            handle_, ids.data(), ids.size(), vectors.data(), vectors.size(), or_null(tags), or_null(owners),
            or_null(payloads), or_null(payload_sizes));
    }

    // add with attributes and memory-ranking values
    // (astral_index_add_memories): times and importances are empty (all
    // 0) or hold one entry per id; the rest as the add above.
    Status add_memories(Span<const std::uint64_t> ids, Span<const float> vectors, Span<const std::uint64_t> tags,
                        Span<const std::uint64_t> owners, Span<const void *const> payloads,
                        Span<const std::uint32_t> payload_sizes, Span<const std::int64_t> times,
                        Span<const float> importances) noexcept {
        if (!attributes_fit(ids.size(), tags, owners, payloads, payload_sizes) ||
            !one_per_id(times, ids.size()) || !one_per_id(importances, ids.size())) {
            return ASTRAL_E_INVALID_ARGUMENT;
        }
        return ASTRAL_HPP_CALL(astral_index_add_memories)(
            handle_, ids.data(), ids.size(), vectors.data(), vectors.size(), or_null(tags), or_null(owners),
            or_null(payloads), or_null(payload_sizes), or_null(times), or_null(importances));
    }

    // Sets the time of stored records (e.g. when recalled): all or none.
    Status touch(Span<const std::uint64_t> ids, std::int64_t time) noexcept {
        return ASTRAL_HPP_CALL(astral_index_touch)(handle_, ids.data(), ids.size(), time);
    }

    // Sets the importance of stored records: all or none.
    Status set_importance(Span<const std::uint64_t> ids, float importance) noexcept {
        return ASTRAL_HPP_CALL(astral_index_set_importance)(handle_, ids.data(), ids.size(), importance);
    }

    // id's time and importance.
    Status memory(std::uint64_t id, std::int64_t &time, float &importance) const noexcept {
        return ASTRAL_HPP_CALL(astral_index_get_memory)(handle_, id, &time, &importance);
    }

    // Replaces the tags of stored records, tags[i] for ids[i] (spans of
    // one length, else ASTRAL_E_INVALID_ARGUMENT without a library call).
    Status set_tags(Span<const std::uint64_t> ids, Span<const std::uint64_t> tags) noexcept {
        if (ids.size() != tags.size()) {
            return ASTRAL_E_INVALID_ARGUMENT;
        }
        return ASTRAL_HPP_CALL(astral_index_set_tags)(handle_, ids.data(), tags.data(), ids.size());
    }

    // Copies id's payload into buf and sets size to its length; a buffer
    // too small (an empty Span asks) gets BUFFER_TOO_SMALL and the size.
    Status payload(std::uint64_t id, Span<unsigned char> buf, std::size_t &size) const noexcept {
        return ASTRAL_HPP_CALL(astral_index_get_payload)(handle_, id, buf.data(), buf.size(), &size);
    }

    // id's payload as a vector (empty for a record stored without one).
    Status payload(std::uint64_t id, std::vector<unsigned char> &out) const {
        out.resize(ASTRAL_MAX_PAYLOAD);
        std::size_t size = 0;
        Status st = payload(id, Span<unsigned char>(out.data(), out.size()), size);
        out.resize(st.ok() ? size : 0);
        return st;
    }

    // id's tag mask and owner.
    Status attributes(std::uint64_t id, std::uint64_t &tags, std::uint64_t &owner) const noexcept {
        return ASTRAL_HPP_CALL(astral_index_get_attributes)(handle_, id, &tags, &owner);
    }

    Status remove(Span<const std::uint64_t> ids) noexcept {
        return ASTRAL_HPP_CALL(astral_index_remove)(handle_, ids.data(), ids.size());
    }

    // Sets out to whether id is stored. astral_index_contains.
    Status contains(std::uint64_t id, bool &out) const noexcept {
        int c = 0;
        Status st = ASTRAL_HPP_CALL(astral_index_contains)(handle_, id, &c);
        out = c != 0;
        return st;
    }

    // Removes every record, keeping the options and tag names.
    // astral_index_clear.
    Status clear() noexcept { return ASTRAL_HPP_CALL(astral_index_clear)(handle_); }

    // add with attributes where a stored id is replaced, not refused
    // (astral_index_upsert); the spans as add's.
    Status upsert(Span<const std::uint64_t> ids, Span<const float> vectors, Span<const std::uint64_t> tags = {},
                  Span<const std::uint64_t> owners = {}, Span<const void *const> payloads = {},
                  Span<const std::uint32_t> payload_sizes = {}) noexcept {
        if (!attributes_fit(ids.size(), tags, owners, payloads, payload_sizes)) {
            return ASTRAL_E_INVALID_ARGUMENT;
        }
        return ASTRAL_HPP_CALL(astral_index_upsert)(
            handle_, ids.data(), ids.size(), vectors.data(), vectors.size(), or_null(tags), or_null(owners),
            or_null(payloads), or_null(payload_sizes));
    }

    // upsert with memory-ranking values (astral_index_upsert_memories):
    // times and importances as add_memories', replaced with the rest in
    // one step.
    Status upsert_memories(Span<const std::uint64_t> ids, Span<const float> vectors, Span<const std::uint64_t> tags,
                           Span<const std::uint64_t> owners, Span<const void *const> payloads,
                           Span<const std::uint32_t> payload_sizes, Span<const std::int64_t> times,
                           Span<const float> importances) noexcept {
        if (!attributes_fit(ids.size(), tags, owners, payloads, payload_sizes) ||
            !one_per_id(times, ids.size()) || !one_per_id(importances, ids.size())) {
            return ASTRAL_E_INVALID_ARGUMENT;
        }
        return ASTRAL_HPP_CALL(astral_index_upsert_memories)(
            handle_, ids.data(), ids.size(), vectors.data(), vectors.size(), or_null(tags), or_null(owners),
            or_null(payloads), or_null(payload_sizes), or_null(times), or_null(importances));
    }

    // Writes id's stored vector (dimension() floats; a cosine index's is
    // the unit vector) to out. astral_index_get_vector.
    Status vector(std::uint64_t id, Span<float> out) const noexcept {
        return ASTRAL_HPP_CALL(astral_index_get_vector)(handle_, id, out.data(), out.size());
    }
    // id's stored vector as a vector of dimension() floats.
    Status vector(std::uint64_t id, std::vector<float> &out) const {
        out.resize(dimension_);
        Status st = vector(id, Span<float>(out.data(), out.size()));
        if (!st.ok()) {
            out.clear();
        }
        return st;
    }

    // Names tag bit bit (nullptr or "" clears). astral_index_set_tag_name.
    Status set_tag_name(std::uint32_t bit, const char *name) noexcept {
        return ASTRAL_HPP_CALL(astral_index_set_tag_name)(handle_, bit, name);
    }

    // The name of tag bit bit into out ("" for none).
    // astral_index_get_tag_name.
    Status tag_name(std::uint32_t bit, std::string &out) const {
        char buf[ASTRAL_MAX_TAG_NAME + 1];
        std::size_t size = 0;
        Status st = ASTRAL_HPP_CALL(astral_index_get_tag_name)(handle_, bit, buf, sizeof buf, &size);
        if (st.ok()) {
            out.assign(buf, size);
        } else {
            out.clear();
        }
        return st;
    }

    // Sets bit to the tag bit named name; NOT_FOUND when none is.
    // astral_index_find_tag.
    Status find_tag(const char *name, std::uint32_t &bit) const noexcept {
        return ASTRAL_HPP_CALL(astral_index_find_tag)(handle_, name, &bit);
    }

    // The k nearest to query, best first, in out[0 .. count); out.size() >= k.
    Status query(Span<const float> query, std::uint32_t k, Span<AstralResult> out,
                 std::uint32_t &count) const noexcept {
        return ASTRAL_HPP_CALL(astral_index_query)(handle_, query.data(), query.size(), k,
                                                   out.data(), out.size(), &count);
    }

    // counts.size() queries, rows of queries; query i's hits are
    // out[i*k .. i*k + counts[i]).
    Status query_batch(Span<const float> queries, std::uint32_t k, Span<AstralResult> out,
                       Span<std::uint32_t> counts) const noexcept {
        std::size_t n = counts.size();
        // A ragged size cannot be a whole number of rows: dimension 0 makes
        // the library refuse it (ASTRAL_E_DIMENSION) before reading.
        std::size_t dimension = n != 0 && queries.size() % n == 0 ? queries.size() / n : 0;
        return ASTRAL_HPP_CALL(astral_index_query_batch)(handle_, queries.data(), n, dimension, k,
                                                         out.data(), out.size(), counts.data());
    }

    // The options.k nearest records passing options' filter, best first,
    // in out[0 .. count); out.size() >= k. plan is the ASTRAL_PLAN_* that
    // answered. astral_index_query_ex.
    Status query(Span<const float> query, const AstralQueryOptions &options, Span<AstralResult> out,
                 std::uint32_t &count, std::uint32_t &plan) const noexcept {
        return ASTRAL_HPP_CALL(astral_index_query_ex)(handle_, query.data(), query.size(), &options, out.data(),
                                                      out.size(), &count, &plan);
    }
    Status query(Span<const float> query, const AstralQueryOptions &options, Span<AstralResult> out,
                 std::uint32_t &count) const noexcept {
        return ASTRAL_HPP_CALL(astral_index_query_ex)(handle_, query.data(), query.size(), &options, out.data(),
                                                      out.size(), &count, nullptr);
    }

    // query_batch with options: query i's hits are out[i*k .. i*k +
    // counts[i]); plan is the last pass's. astral_index_query_batch_ex.
    Status query_batch(Span<const float> queries, const AstralQueryOptions &options, Span<AstralResult> out,
                       Span<std::uint32_t> counts, std::uint32_t &plan) const noexcept {
        std::size_t n = counts.size();
        std::size_t dimension = n != 0 && queries.size() % n == 0 ? queries.size() / n : 0;
        return ASTRAL_HPP_CALL(astral_index_query_batch_ex)(handle_, queries.data(), n, dimension, &options,
                                                            out.data(), out.size(), counts.data(), &plan);
    }

    // query with a frame budget: the best results found within budget_us
    // microseconds (> 0), best first, in out[0 .. count), and in report
    // whether the search ran whole, the share covered, the time and the
    // plan. astral_index_query_within.
    Status query_within(Span<const float> query, const AstralQueryOptions &options, std::uint64_t budget_us,
                        Span<AstralResult> out, std::uint32_t &count, AstralBudgetReport &report) const noexcept {
        report.struct_size = static_cast<std::uint32_t>(sizeof report);
        return ASTRAL_HPP_CALL(astral_index_query_within)(handle_, query.data(), query.size(), &options, budget_us,
                                                          out.data(), out.size(), &count, &report);
    }
    Status query_within(Span<const float> query, const AstralQueryOptions &options, std::uint64_t budget_us,
                        Span<AstralResult> out, std::uint32_t &count) const noexcept {
        return ASTRAL_HPP_CALL(astral_index_query_within)(handle_, query.data(), query.size(), &options, budget_us,
                                                          out.data(), out.size(), &count, nullptr);
    }

    Status count(std::uint64_t &out) const noexcept {
        return ASTRAL_HPP_CALL(astral_index_count)(handle_, &out);
    }

    Status stats(AstralStats &out) const noexcept {
        out.struct_size = static_cast<std::uint32_t>(sizeof out);
        return ASTRAL_HPP_CALL(astral_index_stats)(handle_, &out);
    }

    // Saves to the file at path (UTF-8), crash-safe: astral_index_save.
    Status save(const char *path) const noexcept { return ASTRAL_HPP_CALL(astral_index_save)(handle_, path); }

    // Saves into buf and sets size to the file's length; when buf is too
    // small (an empty Span asks) nothing is written, size is the length
    // needed and the status BUFFER_TOO_SMALL. astral_index_save_to_buffer.
    Status save(Span<unsigned char> buf, std::size_t &size) const noexcept {
        return ASTRAL_HPP_CALL(astral_index_save_to_buffer)(handle_, buf.data(), buf.size(), &size);
    }

    // Waits for the background check of an index loaded with
    // ASTRAL_LOAD_VERIFY_IN_BACKGROUND: OK, or CORRUPT (then every call on
    // the index fails). astral_index_verify. (Not verify(): a macro in
    // Unreal.)
    Status verify_loaded() const noexcept { return ASTRAL_HPP_CALL(astral_index_verify)(handle_); }

private:
    template <class T>
    static bool one_per_id(Span<T> s, std::size_t ids) noexcept {
        return s.empty() || s.size() == ids;
    }
    // The optional attribute arrays of an add or upsert of ids records:
    // each empty or one entry per id, payload sizes beside payloads.
    static bool attributes_fit(std::size_t ids, Span<const std::uint64_t> tags, Span<const std::uint64_t> owners,
                               Span<const void *const> payloads,
                               Span<const std::uint32_t> payload_sizes) noexcept {
        return one_per_id(tags, ids) && one_per_id(owners, ids) && one_per_id(payloads, ids) &&
               payloads.size() == payload_sizes.size();
    }
    // NULL for an empty span: "not given" to the library.
    template <class T>
    static T *or_null(Span<T> s) noexcept {
        return s.empty() ? nullptr : s.data();
    }

    // Makes out own the loaded handle h, with the dimension its file holds;
    // destroys h if that cannot be read.
    static Status adopt(AstralIndex h, Index &out) noexcept {
        AstralStats s{};
        s.struct_size = static_cast<std::uint32_t>(sizeof s);
        Status st = ASTRAL_HPP_CALL(astral_index_stats)(h, &s);
        if (!st.ok()) {
            (void)ASTRAL_HPP_CALL(astral_index_destroy)(h);
            return st;
        }
        (void)out.reset();
        out.handle_ = h;
        out.dimension_ = s.dimension;
        return st;
    }

    AstralIndex handle_ = ASTRAL_INDEX_NONE;
    std::uint32_t dimension_ = 0;
};

} // namespace astral

#endif // ASTRAL_HPP
