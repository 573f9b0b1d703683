package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/records"
)

// newSchemaCmd builds `kesoku schema`, the JSON Schemas of what kesoku
// writes. (The tools' declarations are `kesoku tools schema`.)
func newSchemaCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of the records kesoku writes",
		Long: `schema prints the JSON Schemas of the files kesoku writes, for the
programs that read them: "schema records" is that of the Message records
(the tools' declarations for a provider are "kesoku tools schema").

EXIT STATUS
  0  the schema or the help was printed
  2  an unknown subcommand`,
		Example: `  kesoku schema records > records.schema.json`,
		Args:    subcommandArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.AddCommand(newSchemaRecordsCmd(g))
	return seeAlso(c, "records", "ci")
}

func newSchemaRecordsCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "records",
		Short: "Print the JSON Schema of the Message records",
		Long: `records prints the JSON Schema (draft 2020-12) of the Message records
that every command writes: the tool results of run, mcp serve -o and batch
collect, the transcripts of session, the record of analyze --json. It
holds every field, its type, and when it appears; fields without a value
are left out, never null, and a field the schema does not name is
refused, so a consumer notices a record of a newer kesoku. Its $id names
this kesoku's version.

EXIT STATUS
  0  the schema was printed`,
		Example: `  kesoku schema records > records.schema.json
  kesoku schema records | jq -r '.properties | keys[]'`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if _, err := g.IO.Out.Write(records.Schema(readBuildVersion().Version)); err != nil {
				return fmt.Errorf("write: %w", err)
			}
			return nil
		},
	}
	return seeAlso(c, "records", "ci")
}
