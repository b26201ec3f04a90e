#include "store/libpq_api.hpp"

#include "core/shared_library.hpp"

namespace ktune::store::detail {
namespace {

void resolve(const ktune::detail::shared_library& lib, libpq_api& a) {
    KTUNE_RESOLVE(lib, a, PQconnectdb);
    KTUNE_RESOLVE(lib, a, PQstatus);
    KTUNE_RESOLVE(lib, a, PQfinish);
    KTUNE_RESOLVE(lib, a, PQerrorMessage);
    KTUNE_RESOLVE(lib, a, PQexec);
    KTUNE_RESOLVE(lib, a, PQexecParams);
    KTUNE_RESOLVE(lib, a, PQresultStatus);
    KTUNE_RESOLVE(lib, a, PQclear);
    KTUNE_RESOLVE(lib, a, PQntuples);
    KTUNE_RESOLVE(lib, a, PQgetvalue);
    KTUNE_RESOLVE(lib, a, PQgetlength);
    KTUNE_RESOLVE(lib, a, PQgetisnull);
}

} // namespace

const libpq_api& libpq() {
    // libpq's soname has been libpq.so.5 since PostgreSQL 8.0; its C API only grows.
    return ktune::detail::load_once<libpq_api>(
        {"libpq.so.5"}, "libpq (the PostgreSQL client library)",
        "Install it (Debian/Ubuntu: apt-get install libpq5) or put its directory on "
        "LD_LIBRARY_PATH, or use --db sqlite:PATH.",
        resolve);
}

} // namespace ktune::store::detail
