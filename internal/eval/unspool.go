package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
)

// unspool reads a line of the spool, as encoding/json wrote it, over
// jsontext's tokens: encoding/json's reflection took most of the time of
// reading a case back.
func unspool(d *jsontext.Decoder, line []byte) (*spooled, error) {
	// The spool is kesoku's own: no name twice to look for.
	d.Reset(bytes.NewBuffer(line), jsontext.AllowDuplicateNames(true))
	sc := &spooled{}
	err := object(d, func(k []byte) (err error) {
		switch string(k) {
		case "id":
			sc.ID, err = str(d)
		case "local":
			sc.Local, err = integer(d)
		case "file":
			sc.File, err = integer(d)
		case "line":
			sc.Line, err = integer(d)
		case "col":
			sc.Col, err = integer(d)
		case "prompt":
			sc.Prompt, err = str(d)
		case "system":
			sc.System, err = str(d)
		case "tools":
			var t []string
			t, err = strs(d)
			sc.Tools = &t
		case "max_turns":
			sc.MaxTurns, err = integer(d)
		case "repeat":
			sc.Repeat, err = integer(d)
		case "expect":
			sc.Expect, err = unspoolExpect(d)
		default:
			err = d.SkipValue()
		}
		return err
	})
	return sc, err
}

func unspoolExpect(d *jsontext.Decoder) (*spooledExpect, error) {
	se := &spooledExpect{}
	return se, object(d, func(k []byte) (err error) {
		switch string(k) {
		case "called":
			se.ToolsCalled, err = strs(d)
		case "not_called":
			se.ToolsNotCalled, err = strs(d)
		case "max_turns":
			se.MaxTurns, err = integer(d)
		case "max_tokens":
			var n int
			n, err = integer(d)
			se.MaxTokens = int64(n)
		case "sequence":
			se.Sequence = &Sequence{}
			err = object(d, func(k []byte) (err error) {
				switch string(k) {
				case "Mode":
					se.Sequence.Mode, err = str(d)
				case "Calls":
					se.Sequence.Calls, err = unspoolCalls(d)
				default:
					err = d.SkipValue()
				}
				return err
			})
		case "answer":
			a := &spooledAnswer{}
			se.Answer = a
			err = object(d, func(k []byte) (err error) {
				var s string
				switch string(k) {
				case "contains":
					s, err = str(d)
					a.Contains = &s
				case "regex":
					s, err = str(d)
					a.Regex = &s
				case "equals":
					s, err = str(d)
					a.Equals = &s
				case "schema":
					a.Schema, err = raw(d)
				default:
					err = d.SkipValue()
				}
				return err
			})
		default:
			err = d.SkipValue()
		}
		return err
	})
}

func unspoolCalls(d *jsontext.Decoder) ([]Call, error) {
	if d.PeekKind() == 'n' {
		_, err := d.ReadToken()
		return nil, err
	}
	if _, err := d.ReadToken(); err != nil { // [
		return nil, err
	}
	var calls []Call
	for d.PeekKind() != ']' {
		var c Call
		err := object(d, func(k []byte) (err error) {
			switch string(k) {
			case "name":
				c.Name, err = str(d)
			case "args":
				c.Args, err = raw(d)
			default:
				err = d.SkipValue()
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		calls = append(calls, c)
	}
	_, err := d.ReadToken()
	return calls, err
}

var errSpool = errors.New("not a line of the spool")

// object reads an object, handing each key to member, which reads its
// value. A key is given as written, which the spool's keys are (no
// escapes), and valid until the next read: a switch on it makes no
// string.
func object(d *jsontext.Decoder, member func(key []byte) error) error {
	tok, err := d.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return errSpool
	}
	for d.PeekKind() != '}' {
		k, err := d.ReadValue()
		if err != nil {
			return err
		}
		if err := member(k[1 : len(k)-1]); err != nil {
			return err
		}
	}
	_, err = d.ReadToken()
	return err
}

func str(d *jsontext.Decoder) (string, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return "", err
	}
	if tok.Kind() != '"' {
		return "", errSpool
	}
	return tok.String(), nil
}

func integer(d *jsontext.Decoder) (int, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return 0, err
	}
	if tok.Kind() != '0' {
		return 0, errSpool
	}
	n, err := tok.Int()
	return int(n), err
}

// strs reads a list of strings; [] is an empty list, not nil.
func strs(d *jsontext.Decoder) ([]string, error) {
	tok, err := d.ReadToken()
	if err != nil || tok.Kind() == 'n' {
		return nil, err
	}
	if tok.Kind() != '[' {
		return nil, errSpool
	}
	out := []string{}
	for d.PeekKind() != ']' {
		s, err := str(d)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	_, err = d.ReadToken()
	return out, err
}

// raw reads a value as the JSON it is written as.
func raw(d *jsontext.Decoder) (json.RawMessage, error) {
	v, err := d.ReadValue()
	if err != nil {
		return nil, err
	}
	return json.RawMessage(slices.Clone(v)), nil
}
