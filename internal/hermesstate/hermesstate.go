// Package hermesstate holds the schema of Hermes' state.db, shared by the
// code that creates it (the agent's session store) and the tests of the code
// that reads it (session_search), so both agree on one definition.
package hermesstate

import _ "embed"

// SchemaVersion is the state.db schema version this build reads and writes.
const SchemaVersion = 16

// SchemaV16 creates an empty state.db at schema version 16.
//
//go:embed schema_v16.sql
var SchemaV16 string
