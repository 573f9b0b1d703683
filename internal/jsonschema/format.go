package jsonschema

import (
	"errors"
	"fmt"
	"net/mail"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// stringFormat is the check of a format that drafts 4 to 7 assert; nil
// for one it does not know.
func stringFormat(name string) func(string) error {
	switch name {
	case "date-time":
		return dateTime
	case "date":
		return func(s string) error {
			_, err := time.Parse("2006-01-02", s)
			return err
		}
	case "time":
		return func(s string) error { return dateTime("2000-01-01T" + s) }
	case "email":
		return email
	case "hostname":
		return hostname
	case "ipv4":
		return func(s string) error {
			a, err := netip.ParseAddr(s)
			if err == nil && !a.Is4() {
				err = errors.New("not an IPv4 address")
			}
			return err
		}
	case "ipv6":
		return func(s string) error {
			a, err := netip.ParseAddr(s)
			if err == nil && (!a.Is6() || a.Zone() != "") {
				err = errors.New("not an IPv6 address")
			}
			return err
		}
	case "uri":
		return func(s string) error {
			u, err := url.Parse(s)
			if err == nil && !u.IsAbs() {
				err = errors.New("not absolute")
			}
			return err
		}
	case "uri-reference":
		return func(s string) error {
			_, err := url.Parse(s)
			return err
		}
	case "uuid":
		return uuid
	case "json-pointer":
		return jsonPointer
	}
	return nil
}

// dateTime checks RFC 3339's date-time, which allows a lower-case t and
// z and a leap second.
func dateTime(s string) error {
	u := strings.ToUpper(s)
	if len(u) >= 19 && u[17:19] == "60" {
		u = u[:17] + "59" + u[19:]
	}
	_, err := time.Parse(time.RFC3339Nano, u)
	return err
}

func email(s string) error {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return err
	}
	if a.Address != s || a.Name != "" {
		return errors.New("not a bare address")
	}
	return nil
}

func hostname(s string) error {
	s = strings.TrimSuffix(s, ".")
	if len(s) == 0 || len(s) > 253 {
		return errors.New("wrong length")
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("label %q", label)
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return fmt.Errorf("label %q", label)
			}
		}
	}
	return nil
}

func uuid(s string) error {
	if len(s) != 36 {
		return errors.New("not 36 characters")
	}
	for i, r := range s {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if r != '-' {
				return errors.New("no dash where one goes")
			}
			continue
		}
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return errors.New("not hexadecimal")
		}
	}
	return nil
}

func jsonPointer(s string) error {
	if s != "" && s[0] != '/' {
		return errors.New("does not start with /")
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || s[i+1] != '0' && s[i+1] != '1') {
			return errors.New("~ not followed by 0 or 1")
		}
	}
	return nil
}
