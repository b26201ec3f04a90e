#pragma once
// The config cache: key + shape buckets, entries with provenance, the file store, the lookup
// index with fallback tiers, and merge. See examples/cache_lookup.cpp.
#include "ktune/cache/bucket.hpp"
#include "ktune/cache/entry.hpp"
#include "ktune/cache/index.hpp"
#include "ktune/cache/key.hpp"
#include "ktune/cache/store.hpp"
