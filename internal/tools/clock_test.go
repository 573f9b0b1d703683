package tools

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

func TestCalculateSum(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ a, b, want int }{
		{1, 2, 3}, {-5, 5, 0}, {0, 0, 0}, {12345, 67890, 80235},
		{math.MaxInt, 0, math.MaxInt}, {math.MaxInt, math.MinInt, -1},
		{math.MinInt, 0, math.MinInt}, {math.MaxInt - 1, 1, math.MaxInt}, {math.MinInt + 1, -1, math.MinInt},
	} {
		if got, err := CalculateSum(tt.a, tt.b); err != nil || got != tt.want {
			t.Errorf("CalculateSum(%d, %d) = %d, %v, want %d", tt.a, tt.b, got, err, tt.want)
		}
	}
}

// TestCalculateSumOverflow checks that a sum beyond the int range is an
// error the model can act on, never a wrapped wrong answer.
func TestCalculateSumOverflow(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ a, b int }{
		{math.MaxInt, 1}, {1, math.MaxInt}, {math.MaxInt, math.MaxInt},
		{math.MinInt, -1}, {-1, math.MinInt}, {math.MinInt, math.MinInt},
	} {
		got, err := CalculateSum(tt.a, tt.b)
		assertInvalidArg(t, err, "b", "overflows a")
		if got != 0 {
			t.Errorf("CalculateSum(%d, %d) = %d with its error, want 0", tt.a, tt.b, got)
		}
	}
}

func TestCurrentTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		zone, wantZone, wantOffset string
	}{
		{"", "UTC", "Z"},
		{"UTC", "UTC", "Z"},
		{"Asia/Tokyo", "Asia/Tokyo", "+09:00"},
		{"Asia/Kolkata", "Asia/Kolkata", "+05:30"},
	}
	for _, tt := range tests {
		before := time.Now().Unix()
		got, err := CurrentTime(tt.zone)
		if err != nil {
			t.Fatalf("CurrentTime(%q): %v", tt.zone, err)
		}
		ts, err := time.Parse(time.RFC3339, got.Time)
		if err != nil {
			t.Fatalf("CurrentTime(%q).Time = %q is not RFC 3339: %v", tt.zone, got.Time, err)
		}
		if got.Timezone != tt.wantZone {
			t.Errorf("CurrentTime(%q).Timezone = %q, want %q", tt.zone, got.Timezone, tt.wantZone)
		}
		if len(got.Time) < len(tt.wantOffset) || got.Time[len(got.Time)-len(tt.wantOffset):] != tt.wantOffset {
			t.Errorf("CurrentTime(%q).Time = %q, want offset %s", tt.zone, got.Time, tt.wantOffset)
		}
		if ts.Unix() != got.Unix || got.Unix < before {
			t.Errorf("CurrentTime(%q): Unix %d does not agree with Time %q", tt.zone, got.Unix, got.Time)
		}
		if got.Weekday != ts.Weekday().String() {
			t.Errorf("CurrentTime(%q).Weekday = %q, want %q", tt.zone, got.Weekday, ts.Weekday())
		}
	}
	_, err := CurrentTime("Mars/Olympus_Mons")
	assertInvalidArg(t, err, "timezone", `unknown time zone "Mars/Olympus_Mons": use an IANA name`)
}

func TestSleep(t *testing.T) {
	t.Parallel()
	got, err := Sleep(context.Background(), 0.01)
	if err != nil || got.Seconds != 0.01 {
		t.Errorf("Sleep(0.01) = %+v, %v", got, err)
	}
	for _, s := range []float64{-1, 601, math.NaN(), math.Inf(1)} {
		_, err := Sleep(context.Background(), s)
		assertInvalidArg(t, err, "seconds", "is not between 0 and 600")
	}
}

// TestSleepCancelled cancels a long sleep: it must return at once with the
// context's error. The 10 s guard only keeps a broken sleep from hanging
// the test for its full 600 s.
func TestSleepCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Sleep(ctx, 600)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep cancelled: error = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Sleep did not return when its context was cancelled")
	}
	dctx, cancel2 := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel2()
	if _, err := Sleep(dctx, 600); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Sleep past its deadline: error = %v, want context.DeadlineExceeded", err)
	}
}
