package jsonschema

import (
	"embed"
	"net/url"
	"strings"
)

// metaschemas are the drafts' meta-schemas, as published, each at its
// URL's path under json-schema.org (metaschemas/README.md): a schema
// that refers to one (a value that must be a schema) gets this copy,
// never the network's. They are decoded when a schema refers to them,
// and compiled with it: nothing of them is built before.
//
//go:embed metaschemas/draft-04/schema.json metaschemas/draft-06/schema.json metaschemas/draft-07/schema.json
//go:embed metaschemas/draft/2019-09 metaschemas/draft/2020-12
var metaschemas embed.FS

// bundled is the bundled document whose URL is u (without its fragment):
// a draft's meta-schema or one of its vocabularies, by http or https.
func bundled(u string) (any, bool) {
	p, err := url.Parse(u)
	if err != nil || p.Host != "json-schema.org" || p.Scheme != "http" && p.Scheme != "https" || p.RawQuery != "" {
		return nil, false
	}
	path := strings.TrimPrefix(p.Path, "/")
	if path == "" || strings.Contains(path, "..") {
		return nil, false
	}
	data, err := metaschemas.ReadFile("metaschemas/" + path + ".json")
	if err != nil {
		return nil, false
	}
	doc, err := Decode(data)
	if err != nil {
		return nil, false
	}
	return doc, true
}

// docToken begins the first token of a location in a bundled document,
// followed by the document's URL: no key of a decoded document can begin
// so (decoding makes every key valid UTF-8), so that the locations of the
// documents compiled together never meet.
const docToken = "\xff"

// value is the part of the documents compiled at ptr, and whether there
// is one.
func (c *compiler) value(ptr []string) (any, bool) {
	if len(ptr) > 0 && strings.HasPrefix(ptr[0], docToken) {
		doc, ok := c.extra[ptr[0]]
		if !ok {
			return nil, false
		}
		return At(doc, ptr[1:])
	}
	return At(c.doc, ptr)
}

// load adds the bundled document at u to those compiled, when there is
// one: its resources, anchors and places, as the document's own were
// scanned.
func (c *compiler) load(u string) error {
	doc, ok := bundled(u)
	if !ok {
		return nil
	}
	// By http or by https, it is one document: scanned twice, its $id
	// would be taken twice.
	same := strings.TrimPrefix(strings.TrimPrefix(u, "http:"), "https:")
	if first, ok := c.loaded[same]; ok {
		c.resources[u] = c.resources[first]
		return nil
	}
	c.loaded[same] = u
	draft, _ := draftOf(u)
	if draft == 0 {
		// A vocabulary, whose $schema says its draft anyway.
		draft = Draft2020
	}
	tok := docToken + u
	c.extra[tok] = doc
	return c.scan(doc, []string{tok}, u, nil, draft)
}
