#pragma once
// libpq, opened on first use: only `--db postgresql://…` needs it, and linking it would map libpq,
// OpenSSL, Kerberos and LDAP into every ktune process and every application that links libktune
// (docs/perf/startup.md).
//
//   const auto& pq = ktune::store::detail::libpq();   // throws where it is absent
//   PGconn* c = pq.PQconnectdb(url);
#include <libpq-fe.h>

namespace ktune::store::detail {

/// The libpq entry points the PostgreSQL backend calls, named as in libpq-fe.h.
struct libpq_api {
    decltype(&::PQconnectdb) PQconnectdb = nullptr;
    decltype(&::PQstatus) PQstatus = nullptr;
    decltype(&::PQfinish) PQfinish = nullptr;
    decltype(&::PQerrorMessage) PQerrorMessage = nullptr;
    decltype(&::PQexec) PQexec = nullptr;
    decltype(&::PQexecParams) PQexecParams = nullptr;
    decltype(&::PQresultStatus) PQresultStatus = nullptr;
    decltype(&::PQclear) PQclear = nullptr;
    decltype(&::PQntuples) PQntuples = nullptr;
    decltype(&::PQgetvalue) PQgetvalue = nullptr;
    decltype(&::PQgetlength) PQgetlength = nullptr;
    decltype(&::PQgetisnull) PQgetisnull = nullptr;
};

/// Loads libpq.so.5 once per process (thread-safe); throws error_kind::unsupported naming the
/// library and how to install it where it or a symbol is missing.
const libpq_api& libpq();

} // namespace ktune::store::detail
