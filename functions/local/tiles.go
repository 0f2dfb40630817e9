package main

import "time"

// The server looks for a new or rebuilt tile archive at most every
// archiveRecheck.
const archiveRecheck = 2 * time.Second
