// Built instead of pg_connection.cpp when CMake found no libpq.
#include "store/sql_seam.hpp"

#include "ktune/core/error.hpp"

namespace ktune::store::detail {

std::unique_ptr<connection> open_postgresql(const std::string&) {
    throw error(error_kind::unsupported,
                "this ktune was built without PostgreSQL support: install libpq-dev (scripts/"
                "setup.sh) and rebuild, or use --db sqlite:PATH");
}

} // namespace ktune::store::detail
