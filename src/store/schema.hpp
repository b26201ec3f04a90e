#pragma once
// The store's schema and its versioned migrations (docs/formats.md#store-database).
#include "store/sql_seam.hpp"

namespace ktune::store::detail {

/// Brings the database to `ktune::store::schema_version`, one transaction per step; a database
/// written by a newer ktune (higher version) throws error{unsupported} and is left untouched.
/// Safe when several processes open the same database at once.
int migrate(connection& db);

} // namespace ktune::store::detail
