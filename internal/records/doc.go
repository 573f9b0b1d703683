// Package records owns a run's records file, the JSON Lines file of Message
// records.
//
// kesoku run, batch collect, session, mcp serve and analyze write it;
// diff, merge and --resume read it.
//
//   - Writing: Create and Append open the file under its lock (a second
//     writer is refused with ErrInUse, and a torn last line is cut off);
//     Writer writes each record as one whole line; Replace writes a file
//     whole beside it and renames it into place under the lock.
//   - Reading: Reader is the one reader of JSON Lines (records files and
//     request files), a line at a time in bounded memory; Head reads what
//     identifies a record without building the rest.
//   - Packing: Packer is the one builder of tool_result records (what a
//     call came back with, a call refused, a session's call cut short or
//     unanswered), and KindOf beside it the one mapping from errors to
//     error kinds, for every command that makes calls.
//   - Positions: the records of a run carry their request's place in it
//     (message.Record.Position), by which Merge joins the files of a run's
//     shards and Compact ends a resumed run, in request order.
//   - Resuming: Resume opens a file to go on with the run that wrote it,
//     knowing what it finished (Finished), and Compact leaves it holding
//     one record per request.
//   - Reports: Count, the records a command wrote counted, which run,
//     batch collect and merge share; RunReport and MergeReport, what run
//     and merge did, in one line and as JSON (Report).
package records
