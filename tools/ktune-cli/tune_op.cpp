#include "tune_op.hpp"

#include <cstdio>

namespace ktune::cli {
int run_tune_op(const tune_op_options& o) {
    std::fprintf(stderr, "ktune tune %s: tuning registered ops is not implemented yet\n",
                 o.op.c_str());
    return 2;
}
} // namespace ktune::cli
