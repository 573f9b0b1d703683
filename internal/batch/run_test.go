package batch

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// runRecords are the records kesoku run --model writes for the requests
// of file, asking p: what a batch's records are held to.
func runRecords(t *testing.T, p llm.Provider, dir, file string) []*message.Record {
	t.Helper()
	f, err := request.Open(context.Background(), file, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := runner.New(toolset.Of(registry.Default), runner.Options{
		SessionID: "s1", ArgsHash: true, AWD: dir, Staging: filepath.Join(dir, ".kesoku", "staging"), Model: p,
	})
	var recs []*message.Record
	if _, err := r.Run(context.Background(), f.Requests(), func(rec *message.Record) error {
		recs = append(recs, rec)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return recs
}
