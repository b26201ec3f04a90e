#include "catch.hpp"

#include "ktune/core/handle.hpp"

#include <type_traits>
#include <utility>

namespace {
int g_freed = 0;
struct counting_deleter {
    void operator()(int) const noexcept { ++g_freed; }
};
using handle = ktune::unique_handle<int, counting_deleter>;
} // namespace

TEST_CASE("unique_handle is move-only and frees exactly once") {
    static_assert(!std::is_copy_constructible_v<handle>);
    static_assert(std::is_nothrow_move_constructible_v<handle>);
    static_assert(std::is_nothrow_destructible_v<handle>);
    g_freed = 0;
    {
        handle a(7);
        handle b(std::move(a));
        CHECK_FALSE(a);
        CHECK(b.get() == 7);
        handle c(9);
        c = std::move(b); // frees 9
        CHECK(g_freed == 1);
        CHECK(c.get() == 7);
    }
    CHECK(g_freed == 2);
    handle d(3);
    CHECK(d.release() == 3);
    CHECK(g_freed == 2);
}
