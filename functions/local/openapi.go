package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"

	"meridian/shared/datadir"
)

// openapiCommand prints the OpenAPI document of the server's routes, as
// GET /openapi.json answers it, without starting a server or reading a data
// directory: make lint-openapi lints what it prints.
func openapiCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("openapi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the document to this file instead of stdout")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	doc, err := openAPIDocument(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "meridian openapi: %v\n", err)
		return 1
	}
	if *out == "" {
		_, err = stdout.Write(doc)
	} else {
		err = os.WriteFile(*out, doc, 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "meridian openapi: %v\n", err)
		return 1
	}
	return 0
}

// openAPIDocument builds a server over an empty scratch data directory (the
// routes do not depend on the data) and returns the document its GET
// /openapi.json answers.
func openAPIDocument(ctx context.Context) ([]byte, error) {
	dir, err := os.MkdirTemp("", "meridian-openapi-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	srv, err := newServer(ctx, serverConfig{data: datadir.Dir(dir), logger: slog.New(slog.DiscardHandler), noFixtures: true})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	return openAPIDocOf(srv.mux)
}
