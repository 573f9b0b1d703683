package records

import (
	_ "embed"
	"net/url"
	"strings"
)

//go:embed records.schema.json
var schemaDoc string

// schemaIDPlaceholder is what Schema replaces with the document's $id.
const schemaIDPlaceholder = "KESOKU_RECORDS_SCHEMA_ID"

// SchemaID is the $id of the records' JSON Schema as kesoku version
// writes them: the schema's place in the repository at that version.
func SchemaID(version string) string {
	return "https://raw.githubusercontent.com/kesoku/kesoku/" + url.PathEscape(version) + "/internal/records/records.schema.json"
}

// Schema is the JSON Schema (draft 2020-12) of the Message records that
// kesoku version writes: every field, its type, and when it appears. The
// tests validate what each command writes against it.
func Schema(version string) []byte {
	return []byte(strings.Replace(schemaDoc, `"`+schemaIDPlaceholder+`"`, string(AppendString(nil, SchemaID(version))), 1))
}
