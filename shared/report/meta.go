package report

import (
	"encoding/json"
	"fmt"
	"sync"
)

// Reasons of meta.unavailable.
const (
	ReasonNoData       = "no_data"                   // the published data does not cover the parcel
	ReasonNotPublished = "not_published_in_province" // the province publishes no such data
	ReasonSourceError  = "source_error"              // the stored item cannot be read
	ReasonNotIngested  = "not_ingested"              // no source of the section is ingested
)

// Meta is a report's meta: the requested sections that could not be
// provided, and the datasets behind the requested sections by name, of
// type S.
type Meta[S any] struct {
	Unavailable []Unavailable `json:"unavailable"`
	Sources     map[string]S  `json:"sources"`
}

// NewMeta is an empty meta (empty array and object, not null).
func NewMeta[S any]() Meta[S] {
	return Meta[S]{Unavailable: []Unavailable{}, Sources: map[string]S{}}
}

// Unavailable is an item of meta.unavailable.
type Unavailable struct {
	Section string `json:"section"`
	Reason  string `json:"reason"`
}

// AddUnavailable lists section in meta.unavailable with reason.
func (m *Meta[S]) AddUnavailable(section, reason string) {
	m.Unavailable = append(m.Unavailable, Unavailable{section, reason})
}

// Sources holds a dataset's SOURCES items (what meta.sources is made of)
// by sort key, for one published version at a time: the items of a
// published version are never rewritten, so they are read once per
// version. The zero value is ready; it is safe for concurrent use.
type Sources struct {
	mu      sync.Mutex
	version int64
	items   map[string]json.RawMessage // nil: none read yet
	decoded any                        // map[string]S of DecodedSources for version, nil when not yet
}

// DecodedSources returns the SOURCES items of the dataset's version
// decoded as S, decoding them once per version (Of reads them).
func DecodedSources[S any](s *Sources, version int64, read func(add func(sk string, data []byte)) error) (map[string]S, error) {
	s.mu.Lock()
	if m, ok := s.decoded.(map[string]S); ok && s.items != nil && s.version == version {
		s.mu.Unlock()
		return m, nil
	}
	s.mu.Unlock()
	items, err := s.Of(version, read)
	if err != nil {
		return nil, err
	}
	m := make(map[string]S, len(items))
	for sk, data := range items {
		var v S
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, fmt.Errorf("report: SOURCES item %s: %w", sk, err)
		}
		m[sk] = v
	}
	s.mu.Lock()
	if s.version == version {
		s.decoded = m
	}
	s.mu.Unlock()
	return m, nil
}

// Of returns the SOURCES items of the dataset's version, reading them with
// read (which calls its argument once per item) when they are not held.
func (s *Sources) Of(version int64, read func(add func(sk string, data []byte)) error) (map[string]json.RawMessage, error) {
	s.mu.Lock()
	if s.items != nil && s.version == version {
		items := s.items
		s.mu.Unlock()
		return items, nil
	}
	s.mu.Unlock()
	items := map[string]json.RawMessage{}
	if err := read(func(sk string, data []byte) { items[sk] = data }); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.version != version {
		s.decoded = nil
	}
	s.version, s.items = version, items
	s.mu.Unlock()
	return items, nil
}
