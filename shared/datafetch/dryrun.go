package datafetch

import (
	"context"
	"fmt"
	"net/http"
)

// Plan is what a fetch would do with one URL.
type Plan struct {
	Key    string
	URL    string
	Name   string
	Action string // new, changed, unchanged, resume, not published, error
	Why    string
	Size   int64 // announced by the server; -1 unknown
}

// DryRun asks each URL of entries, with HEAD and the stored validators,
// whether it changed, and downloads nothing.
func (f *Fetcher) DryRun(ctx context.Context, entries []Entry) []Plan {
	var out []Plan
	for _, e := range entries {
		prev, err := ReadState(f.opts.Dir, e.Key)
		if err != nil {
			out = append(out, Plan{Key: e.Key, Action: "error", Why: err.Error(), Size: -1})
			continue
		}
		for _, s := range f.sources(e) {
			out = append(out, f.plan(ctx, e, s, prev.file(s.URL)))
		}
	}
	return out
}

func (f *Fetcher) plan(ctx context.Context, e Entry, s Expanded, prev *FileState) Plan {
	p := Plan{Key: e.Key, URL: s.URL, Name: s.Name, Size: -1}
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, f.resolve(s.URL), nil)
	if err != nil {
		p.Action, p.Why = "error", err.Error()
		return p
	}
	req.Header.Set("Accept-Encoding", "identity")
	req.Header.Set("User-Agent", userAgent)
	setConditional(req, prev)
	resp, err := f.opts.Client.Do(req)
	if err != nil {
		p.Action, p.Why = "error", err.Error()
		return p
	}
	resp.Body.Close()
	p.Size = resp.ContentLength
	etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	have, meta := partialOf(partialPath(f.opts.Dir, e.Key, s.Name), s.URL)
	if have > 0 && (meta.ETag != "" && meta.ETag != etag || meta.ETag == "" && meta.LastModified != lm) {
		have = 0 // the file changed since: a fetch starts over
	}
	switch {
	case resp.StatusCode == http.StatusNotModified:
		p.Action, p.Why = "unchanged", "the server answers 304 Not Modified to the stored validators"
	case resp.StatusCode == http.StatusNotFound && s.Optional:
		p.Action, p.Why = "not published", "404: nothing published for this period"
	case resp.StatusCode != http.StatusOK:
		p.Action, p.Why = "error", "HTTP "+resp.Status
		if !e.Access.Unattended() {
			p.Why += " (" + e.Access.String() + ": " + e.Note + ")"
		}
	case prev != nil && (etag != "" && etag == prev.ETag || etag == "" && lm != "" && lm == prev.LastModified):
		p.Action, p.Why = "unchanged", "same ETag/Last-Modified as the current download"
	case have > 0:
		p.Action, p.Why = "resume", fmt.Sprintf("a partial download of %d bytes is resumed with Range", have)
	case prev == nil:
		p.Action, p.Why = "new", "never downloaded"
	default:
		p.Action, p.Why = "changed", fmt.Sprintf("ETag %q / Last-Modified %q differ from the current %q / %q", etag, lm, prev.ETag, prev.LastModified)
	}
	return p
}
