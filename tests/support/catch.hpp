#pragma once
// The one place that knows which Catch2 is installed: v3 on the GPU machines, v2 on Debian 12.
#if KTUNE_CATCH_MAJOR == 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
using Catch::Approx; // v2 puts Approx in the global namespace already
#else
#include <catch2/catch.hpp>
#endif
