package tools

import (
	"context"
	"fmt"
	"math"
	"time"
	// The zone database is embedded so that current_time knows every IANA
	// zone on machines without /usr/share/zoneinfo (containers, Windows).
	_ "time/tzdata"

	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolspec"
)

// Now is the time current_time reports.
type Now struct {
	// Time is the time in RFC 3339, with the zone's offset.
	Time string `json:"time"`
	// Timezone is the IANA name of the zone.
	Timezone string `json:"timezone"`
	// Weekday is the day of the week in that zone; models get it wrong
	// when they work it out themselves.
	Weekday string `json:"weekday"`
	// Unix is the time in seconds since 1970-01-01 UTC.
	Unix int64 `json:"unix"`
}

// CurrentTime returns the current date and time in a time zone.
//
// Args:
//
//	timezone: An IANA time zone name, such as "Europe/Paris" or
//	  "America/New_York". Defaults to "UTC".
//
//kesoku:tool
func CurrentTime(timezone string) (*Now, error) {
	if timezone == "" {
		timezone = "UTC"
	}
	loc, err := time.LoadLocation(timezone)
	if err != nil {
		return nil, registry.InvalidArg("timezone", fmt.Errorf("unknown time zone %q: use an IANA name such as \"Europe/Paris\" or \"UTC\"", timezone))
	}
	now := time.Now().In(loc)
	return &Now{
		Time:     now.Format(time.RFC3339),
		Timezone: loc.String(),
		Weekday:  now.Weekday().String(),
		Unix:     now.Unix(),
	}, nil
}

// maxSleep bounds sleep: it is for tests and demos, and a model that asks
// for an hour has made a mistake that would hold a batch up.
const maxSleep = 10 * time.Minute

// sleepBounds refuses a sleep longer than maxSleep, or shorter than none.
func sleepBounds(seconds float64) error {
	if math.IsNaN(seconds) || seconds < 0 || seconds > maxSleep.Seconds() {
		return registry.InvalidArg("seconds", fmt.Errorf("%v is not between 0 and %v", seconds, maxSleep.Seconds()))
	}
	return nil
}

// checkSleep is sleep's Precheck: its bounds, said before it runs.
func checkSleep(_ *registry.ToolContext, args map[string]any) error {
	seconds, err := toolspec.DecodeFloat[float64](args["seconds"])
	if err != nil {
		return nil // not a number: validation says so
	}
	return sleepBounds(seconds)
}

// Slept is what sleep reports.
type Slept struct {
	// Seconds is how long the call slept.
	Seconds float64 `json:"slept_seconds"`
}

// Sleep waits for a number of seconds, then returns. It stops early, with
// an error, when the call is cancelled.
//
// Args:
//
//	seconds: How long to wait, in seconds (fractions allowed), at most 600.
//
//kesoku:tool check=checkSleep
func Sleep(ctx context.Context, seconds float64) (*Slept, error) {
	if err := sleepBounds(seconds); err != nil {
		return nil, err
	}
	t := time.NewTimer(time.Duration(seconds * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
		return &Slept{Seconds: seconds}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
