#pragma once
// The store's schema as an ordered list of migrations: a database records the number it has
// reached (PRAGMA user_version) and opening it applies the rest, in one transaction each. A store
// written by a newer ridge (a version this build does not know) is refused, never rewritten.
#include "store/sqlite.h"

namespace ridge::store {

// The version the migrations lead to.
int schema_version();
// Brings `db` to schema_version(), applying migrations after its own version; `up_to` stops earlier
// (tests build an old store with it).
void migrate(Connection& db, int up_to = -1);

}  // namespace ridge::store
