package datalayers

import "meridian/shared/tile"

// Fields returns the feature properties of data archive name (a layer's
// Name, "og_activity_lsd"), from the tile catalog; nil for an archive this
// package does not build.
func Fields(name string) []tile.Field {
	for _, region := range []string{"ag", "energy"} {
		if l, ok := tile.Lookup(region, name); ok && l.Kind == tile.Data {
			return l.Fields
		}
	}
	return nil
}

// Supported reports whether this package builds layer l's archive: the
// data layers whose properties the catalog documents.
func Supported(l tile.Layer) bool { return l.Kind == tile.Data && len(l.Fields) > 0 }

// Names lists the archives this package builds, sorted by path.
func Names() []string {
	var out []string
	for _, l := range tile.Layers() {
		if Supported(l) {
			out = append(out, l.Name)
		}
	}
	return out
}
